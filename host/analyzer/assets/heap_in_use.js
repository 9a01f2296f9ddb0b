// The Heap in Use tab, drawn from the heap plugin's -heap_in_use with d3:
// for each experiment, the bytes in use at the end of each time bin as an
// area, and the highest within each bin as a line above it; time across in
// seconds since collection start. Hovering a bin gives its figures.
"use strict";

const HeapInUse = (() => {
  const LEFT = 90;
  const WIDTH = 1200;
  const HEIGHT = 260;
  const TOP = 16;
  const BOTTOM = 26;
  const TITLE = "Bytes in use over time";

  function draw(view) {
    const box = document.createElement("div");
    box.className = "heap-in-use-box";
    const table = (view.tables || []).find((t) => t.title.startsWith(TITLE));
    if (!table || !table.rows.length) {
      box.append(Render.el("p", "caption", "No allocations in the selection."));
      return box;
    }
    const experiments = d3.groups(table.rows, (r) => r.values.experiment);
    box.append(Render.el("p", "caption",
      `Bytes in use at the end of each bin (area) and the highest within it (line), ` +
      `bins of ${Render.formatValue(table.rows[0].values.end - table.rows[0].values.start, "sec.")} s`));
    for (const [experiment, rows] of experiments) {
      const end = d3.max(rows, (r) => r.values.end);
      const top = d3.max(rows, (r) => r.values.highest) || 1;
      const x = d3.scaleLinear().domain([0, end]).range([LEFT, LEFT + WIDTH]);
      const y = d3.scaleLinear().domain([0, top]).nice().range([TOP + HEIGHT, TOP]);
      const svg = d3.select(box).append("svg").attr("class", "heap-in-use")
        .attr("viewBox", [0, 0, LEFT + WIDTH + 10, TOP + HEIGHT + BOTTOM]).attr("width", "100%")
        .attr("data-experiment", experiment).attr("data-bins", rows.length).attr("data-highest", top);
      if (experiments.length > 1)
        svg.append("text").attr("class", "series-label").attr("x", LEFT + 4).attr("y", TOP + 10)
          .text(`experiment ${experiment}`);
      svg.append("path").attr("class", "in-use").datum(rows)
        .attr("d", d3.area().curve(d3.curveStepAfter).x((r) => x(r.values.start)).y0(y(0)).y1((r) => y(r.values.at_end)));
      svg.append("path").attr("class", "highest").datum(rows)
        .attr("d", d3.line().curve(d3.curveStepAfter).x((r) => x(r.values.start)).y((r) => y(r.values.highest)));
      const hover = svg.append("g").selectAll("rect").data(rows).join("rect").attr("class", "bin")
        .attr("x", (r) => x(r.values.start)).attr("width", (r) => Math.max(1, x(r.values.end) - x(r.values.start)))
        .attr("y", TOP).attr("height", HEIGHT)
        .attr("data-at-end", (r) => r.values.at_end).attr("data-highest", (r) => r.values.highest);
      hover.append("title").text((r) =>
        `${r.values.start}-${r.values.end} s\nin use at the end: ${Render.formatValue(r.values.at_end, "bytes")} bytes` +
        `\nhighest: ${Render.formatValue(r.values.highest, "bytes")} bytes\nlive allocations: ${r.values.live}`);
      svg.append("g").attr("class", "axis").attr("transform", `translate(0,${TOP + HEIGHT})`)
        .call(d3.axisBottom(x).ticks(10).tickFormat((t) => t + " s"));
      svg.append("g").attr("class", "axis").attr("transform", `translate(${LEFT},0)`)
        .call(d3.axisLeft(y).ticks(6, "~s"));
    }
    return box;
  }

  return { draw };
})();
