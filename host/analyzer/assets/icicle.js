// The call tree as an icicle (d3's hierarchy and partition layout): <Total>
// across the top, each callee below its caller as wide as its share of the
// first inclusive metric shown. A click opens the function's callers and
// callees; hovering gives its name and value. Names go in as text.
"use strict";

const Icicle = (() => {
  const ROW_HEIGHT = 20;

  // The rows (pre-order, with depth) as nested nodes.
  function hierarchyOf(rows, spec) {
    const nodeOf = (row) => ({ name: row.name, value: row.values[spec] || 0, children: [] });
    const root = nodeOf(rows[0]);
    const path = [root];
    for (const row of rows.slice(1)) {
      const node = nodeOf(row);
      while (path.length > (row.depth || 0)) path.pop();
      path[path.length - 1].children.push(node);
      path.push(node);
    }
    return root;
  }

  function draw(table, ctx) {
    const metric = table.metrics.find((m) => /^i\.[A-Za-z0-9_]+$/.test(m.spec));
    if (!metric || !table.rows.length || !(table.rows[0].values[metric.spec] > 0)) return null;
    const root = d3.hierarchy(hierarchyOf(table.rows, metric.spec));
    // Each node's value is its inclusive figure as er_print gives it.
    root.each((node) => {
      node.value = node.data.value;
    });
    root.sort((a, b) => b.value - a.value);
    const width = 1200;
    const height = (root.height + 1) * ROW_HEIGHT;
    d3.partition().size([width, height])(root);

    const box = document.createElement("div");
    box.className = "icicle-box";
    const caption = Render.el("p", "caption", "Icicle of " + metric.title + " (" + metric.unit + "); click a function for its callers and callees");
    box.append(caption);
    // Nodes narrower than a pixel (calls that hold none of the metric) are left out.
    const drawn = root.descendants().filter((n) => n.x1 - n.x0 >= 1);
    const shownHeight = (d3.max(drawn, (n) => n.depth) + 1) * ROW_HEIGHT;
    const svg = d3.select(box).append("svg").attr("class", "icicle").attr("viewBox", [0, 0, width, shownHeight])
      .attr("width", "100%").attr("data-metric", metric.spec);
    const nodes = svg.selectAll("g").data(drawn).join("g")
      .attr("class", "node").attr("transform", (n) => `translate(${n.x0},${n.y0})`)
      .attr("data-name", (n) => n.data.name).attr("data-value", (n) => n.data.value)
      .attr("data-width", (n) => n.x1 - n.x0);
    nodes.append("rect").attr("width", (n) => Math.max(0, n.x1 - n.x0 - 1)).attr("height", ROW_HEIGHT - 1)
      .attr("fill", (n) => d3.interpolateYlOrRd(0.15 + 0.6 * (n.value / root.value)));
    nodes.append("title").text((n) => `${n.data.name}: ${Render.formatValue(n.data.value, metric.unit)} ${metric.unit}`);
    nodes.filter((n) => n.x1 - n.x0 > 40).append("text").attr("x", 4).attr("y", 14)
      .text((n) => {
        const room = Math.floor((n.x1 - n.x0 - 8) / 7);
        return n.data.name.length > room ? n.data.name.slice(0, Math.max(0, room - 1)) + "\u2026" : n.data.name;
      });
    nodes.filter((n) => n.depth > 0).on("click", (event, n) => ctx.onFunction && ctx.onFunction(n.data.name));
    return box;
  }

  return { draw };
})();
