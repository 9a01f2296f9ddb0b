// The timeline: one lane per thread (per rank and thread for MPI), each
// plugin's events binned over the run: CPU time, call time or time in a
// span (an OpenMP parallel region) as the busy share of a bin, other events
// as counts scaled to the busiest bin; below them, one lane per process and
// level (heap bytes in use), its highest value in each bin scaled to its
// peak. Drag across a lane to zoom to that time range.
"use strict";

const LumenTimeline = (() => {
  const COLOURS = ["#d62", "#28b", "#3a3", "#a3c", "#c90", "#099", "#777"];

  function Timeline(container, legend, info, reset, data) {
    this.container = container;
    this.data = data;
    this.info = info;
    this.first = 0;
    this.last = data.bins;
    this.plugins = [];
    for (const lane of data.lanes) for (const p of Object.keys(lane.series)) if (!this.plugins.includes(p)) this.plugins.push(p);
    this.maxCount = {};
    for (const lane of data.lanes)
      for (const [p, points] of Object.entries(lane.series))
        for (const [, v] of points) this.maxCount[p] = Math.max(this.maxCount[p] || 0, v);
    legend.replaceChildren();
    this.plugins.forEach((p, i) => {
      const item = document.createElement("span");
      item.className = "legend-item";
      const swatch = document.createElement("span");
      swatch.className = "legend-swatch";
      swatch.style.background = COLOURS[i % COLOURS.length];
      item.append(swatch, `${p} (${this.kind(p)})`);
      legend.appendChild(item);
    });
    reset.addEventListener("click", () => { this.first = 0; this.last = data.bins; this.render(); });
  }

  Timeline.prototype.kind = function (plugin) {
    const k = (this.data.kinds || {})[plugin];
    return k === "cpu" ? "CPU time" : k === "call" ? "time in calls" : k === "span" ? "time in it" : "events";
  };

  Timeline.prototype.seconds = function (bin) {
    return (bin * this.data.bin_ns / 1e9).toFixed(3) + " s";
  };

  // A row of the timeline: its label and the canvas it is drawn on.
  Timeline.prototype.addRow = function (className, text, title) {
    const row = document.createElement("div");
    row.className = className;
    const label = document.createElement("div");
    label.className = "lane-label";
    label.textContent = text;
    label.title = title;
    const canvas = document.createElement("canvas");
    row.append(label, canvas);
    this.container.appendChild(row);
    return { row, canvas };
  };

  Timeline.prototype.render = function () {
    this.container.replaceChildren();
    for (const lane of this.data.lanes) {
      const text = `Thread ${lane.thread} (${lane.tid}) · ${lane.process}`;
      const { row, canvas } = this.addRow("lane", text, text);
      row.dataset.tid = lane.tid;
      this.draw(canvas, lane);
      this.interact(canvas, lane);
    }
    for (const level of this.data.levels || []) {
      const text = `${level.name} · ${level.process}`;
      const { row, canvas } = this.addRow("level-lane", text, `${text}, peak ${level.peak} ${level.unit}`);
      row.dataset.level = level.name;
      this.drawLevel(canvas, level);
      this.interactLevel(canvas, level);
    }
  };

  // A level's points are [bin, highest in it, value at its end]; the value
  // at a bin's end holds until the next point.
  Timeline.prototype.levelAt = function (level, bin) {
    let value = 0;
    for (const [b, highest, end] of level.points) {
      if (b > bin) break;
      value = b === bin ? highest : end;
    }
    return value;
  };

  // A lane's canvas, sized to its box and cleared.
  function cleared(canvas) {
    const width = canvas.clientWidth || 800, height = 36;
    canvas.width = width;
    canvas.height = height;
    const g = canvas.getContext("2d");
    g.clearRect(0, 0, width, height);
    return { g, width, height };
  }

  Timeline.prototype.drawLevel = function (canvas, level) {
    const { g, width, height } = cleared(canvas);
    g.fillStyle = "#6a5acd";
    const span = this.last - this.first;
    const peak = level.peak || 1;
    let held = 0, next = 0;
    for (; next < level.points.length && level.points[next][0] < this.first; ++next) held = level.points[next][2];
    for (let bin = this.first; bin < this.last; ++bin) {
      let here = held;
      if (next < level.points.length && level.points[next][0] === bin) {
        here = level.points[next][1];
        held = level.points[next][2];
        ++next;
      }
      const h = here > 0 ? Math.max(1, here / peak * (height - 1)) : 0;
      g.fillRect((bin - this.first) / span * width, height - h, Math.max(1, width / span), h);
    }
  };

  Timeline.prototype.interactLevel = function (canvas, level) {
    canvas.addEventListener("mousemove", e => {
      const bin = Math.floor(this.binAt(canvas, e.clientX));
      const v = this.levelAt(level, bin);
      this.info.textContent = `${level.name} (${level.process}) at ${this.seconds(bin)}: ${v} ${level.unit}` +
        ` (peak ${level.peak})`;
    });
  };

  Timeline.prototype.draw = function (canvas, lane) {
    const { g, width, height } = cleared(canvas);
    const span = this.last - this.first;
    const strip = height / Math.max(1, this.plugins.length);
    this.plugins.forEach((p, i) => {
      const points = lane.series[p] || [];
      g.fillStyle = COLOURS[i % COLOURS.length];
      const kind = (this.data.kinds || {})[p];
      for (const [bin, v] of points) {
        if (bin < this.first || bin >= this.last) continue;
        const share = kind === "count" ? v / (this.maxCount[p] || 1) : Math.min(1, v / this.data.bin_ns);
        const x = (bin - this.first) / span * width;
        const w = Math.max(1, width / span);
        const h = Math.max(1, share * (strip - 1));
        g.fillRect(x, i * strip + strip - h, w, h);
      }
    });
  };

  Timeline.prototype.binAt = function (canvas, clientX) {
    const r = canvas.getBoundingClientRect();
    return this.first + (clientX - r.left) / r.width * (this.last - this.first);
  };

  Timeline.prototype.interact = function (canvas, lane) {
    let from = null;
    canvas.addEventListener("mousedown", e => { from = this.binAt(canvas, e.clientX); });
    canvas.addEventListener("mouseup", e => {
      if (from === null) return;
      const to = this.binAt(canvas, e.clientX);
      const lo = Math.floor(Math.min(from, to)), hi = Math.ceil(Math.max(from, to));
      from = null;
      if (hi - lo >= 2) {
        this.first = Math.max(0, lo);
        this.last = Math.min(this.data.bins, hi);
        this.render();
      }
    });
    canvas.addEventListener("mousemove", e => {
      const bin = Math.floor(this.binAt(canvas, e.clientX));
      const parts = this.plugins.map(p => {
        const hit = (lane.series[p] || []).find(([b]) => b === bin);
        const v = hit ? hit[1] : 0;
        return (this.data.kinds || {})[p] === "count" ? `${p} ${v}` : `${p} ${(v / 1e6).toFixed(3)} ms`;
      });
      this.info.textContent = `Thread ${lane.thread} at ${this.seconds(bin)}: ${parts.join(", ")}`;
    });
  };

  return { Timeline };
})();
