// Flame graph (root at the bottom), icicle (root at the top) and the
// differential flame graph, drawn as positioned elements from the report's
// unique stacks. Click a frame to zoom to it, search to highlight frames,
// hover for a frame's value and share.
"use strict";

const LumenFlame = (() => {
  const ROW = 17;

  function newNode(frame, parent) {
    return { frame, parent, value: 0, base: 0, width: 0, children: new Map() };
  }

  // stacks: [{f: [frame indices, root first], v: [values]}]; base: the same
  // for the experiment compared with (its values become node.base). A
  // frame's width is its value; compared, it is each stack's larger side,
  // so a stack only the base has (time removed) is drawn as well as one
  // only the new experiment has.
  function buildTree(stacks, metric, baseStacks) {
    const root = newNode(-1, null);
    const merged = new Map();
    const gather = (list, field) => {
      for (const s of list) {
        const v = s.v[metric] || 0;
        if (v === 0) continue;
        const key = s.f.join(",");
        if (!merged.has(key)) merged.set(key, { f: s.f, value: 0, base: 0 });
        merged.get(key)[field] += v;
      }
    };
    gather(stacks, "value");
    if (baseStacks) gather(baseStacks, "base");
    for (const s of merged.values()) {
      const width = baseStacks ? Math.max(s.value, s.base) : s.value;
      const credit = node => { node.value += s.value; node.base += s.base; node.width += width; };
      let node = root;
      credit(node);
      for (const f of s.f) {
        if (!node.children.has(f)) node.children.set(f, newNode(f, node));
        node = node.children.get(f);
        credit(node);
      }
    }
    return root;
  }

  function hue(name) {
    let h = 0;
    for (let i = 0; i < name.length; ++i) h = (h * 31 + name.charCodeAt(i)) >>> 0;
    return h;
  }

  function warmColour(name) {
    const h = hue(name);
    return `rgb(${205 + (h % 50)}, ${80 + ((h >> 8) % 130)}, ${40 + ((h >> 16) % 40)})`;
  }

  // Growth red, shrink blue, by the change relative to the larger side.
  function diffColour(node) {
    const delta = node.value - node.base;
    const scale = Math.max(node.value, node.base) || 1;
    const strength = Math.min(1, Math.abs(delta) / scale);
    const fade = Math.round(235 - 175 * strength);
    return delta >= 0 ? `rgb(235, ${fade}, ${fade})` : `rgb(${fade}, ${fade}, 235)`;
  }

  // One graph in `container`: {stacks, base?, frames, metric, unit, inverted, info, search, reset}.
  function FlameGraph(container, options) {
    this.container = container;
    this.options = options;
    this.root = buildTree(options.stacks, options.metric, options.base);
    this.zoom = this.root;
    this.searchText = "";
    options.reset.addEventListener("click", () => this.zoomTo(this.root));
    options.search.addEventListener("input", () => {
      this.searchText = options.search.value;
      this.highlight();
    });
  }

  FlameGraph.prototype.name = function (node) {
    return node.frame < 0 ? "<Total>" : this.options.frames[node.frame].name;
  };

  FlameGraph.prototype.describe = function (node) {
    const o = this.options;
    const share = this.root.value ? (100 * node.value / this.root.value).toFixed(2) : "0.00";
    let text = `${this.name(node)}: ${o.format(node.value)} (${share}%)`;
    if (o.base && node.value === 0 && node.base > 0) text += `, removed: was ${o.format(node.base)}`;
    else if (o.base && node.base === 0 && node.value > 0) text += `, added`;
    else if (o.base) text += `, was ${o.format(node.base)} (${node.value >= node.base ? "+" : ""}${o.format(node.value - node.base)})`;
    return text;
  };

  FlameGraph.prototype.zoomTo = function (node) {
    this.zoom = node;
    this.render();
  };

  FlameGraph.prototype.render = function () {
    const o = this.options;
    const c = this.container;
    c.replaceChildren();
    const frames = [];
    let depthMax = 0;
    // The zoomed frame's ancestors span the whole width.
    const ancestors = [];
    for (let n = this.zoom; n; n = n.parent) ancestors.unshift(n);
    ancestors.forEach((n, depth) => frames.push({ node: n, depth, x: 0, w: 1, ancestor: n !== this.zoom }));
    const total = this.zoom.width || 1;
    const minWidth = 0.0005;
    const walk = (node, depth, x) => {
      depthMax = Math.max(depthMax, depth);
      let offset = x;
      const children = Array.from(node.children.values()).sort((a, b) => this.name(a) < this.name(b) ? -1 : 1);
      for (const child of children) {
        const w = child.width / total;
        if (w >= minWidth) {
          frames.push({ node: child, depth: depth + 1, x: offset, w, ancestor: false });
          walk(child, depth + 1, offset);
        }
        offset += w;
      }
    };
    walk(this.zoom, ancestors.length - 1, 0);
    depthMax = Math.max(depthMax, ancestors.length - 1);
    c.style.height = (depthMax + 1) * ROW + "px";
    for (const f of frames) {
      const name = this.name(f.node);
      const div = document.createElement("div");
      div.className = "frame" + (f.ancestor ? " ancestor" : "");
      div.style.left = (100 * f.x) + "%";
      div.style.width = (100 * f.w) + "%";
      const row = o.inverted ? f.depth : depthMax - f.depth;
      div.style.top = row * ROW + "px";
      div.style.background = o.base ? diffColour(f.node) : warmColour(name);
      div.textContent = name;
      div.dataset.name = name;
      div.dataset.depth = f.depth;
      div.title = this.describe(f.node);
      div.addEventListener("mouseenter", () => { o.info.textContent = this.describe(f.node); });
      div.addEventListener("click", () => this.zoomTo(f.node));
      f.node.element = div;
      c.appendChild(div);
    }
    c.dataset.zoomed = this.name(this.zoom);
    this.highlight();
  };

  FlameGraph.prototype.highlight = function () {
    const text = this.searchText.toLowerCase();
    let matched = 0;
    const counted = new Set();
    for (const div of this.container.querySelectorAll(".frame")) {
      const hit = text !== "" && div.dataset.name.toLowerCase().includes(text);
      div.classList.toggle("match", hit);
    }
    if (text === "") return;
    // The share of matching stacks: each matching frame counted once, not under another match.
    const visit = node => {
      if (node.frame >= 0 && this.name(node).toLowerCase().includes(text)) {
        if (!counted.has(node)) { counted.add(node); matched += node.value; }
        return;
      }
      for (const child of node.children.values()) visit(child);
    };
    visit(this.root);
    const share = this.root.value ? (100 * matched / this.root.value).toFixed(2) : "0.00";
    this.options.info.textContent = `Matched: ${this.options.format(matched)} (${share}%)`;
  };

  return { FlameGraph, buildTree };
})();
