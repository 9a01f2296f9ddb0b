// The MPI Chart tab, drawn from the mpi plugin's -mpi_ranks, -mpi_messages
// and -mpi_stats with d3: each rank's MPI time as a bar (its calls and
// bytes on hover), the bytes each rank sent to each other as a matrix,
// sender by row and receiver by column, shaded by their share of the
// largest, each MPI function's time as a bar, and the messages sent by
// size. Names go in as text.
"use strict";

const MpiChart = (() => {
  const LEFT = 260;
  const BAR = 22;
  const WIDTH = 700;
  const CELL = 46;
  const RANKS = "MPI ranks";
  const BYTES = "Bytes sent: sender (row) x receiver (column)";
  const SIZES = "Messages sent by size";
  const FUNCTIONS = "MPI functions";

  const tableTitled = (view, title) => ((view && view.tables) || []).find((t) => t.title === title);

  // A bar per row of `table` by its `key` value (`unit` as render.js
  // formats it), in an svg of class `className` whose bars are `barClass`.
  function bars(table, key, unit, title, className, barClass, hover) {
    const rows = table.rows;
    const x = d3.scaleLinear().domain([0, d3.max(rows, (r) => r.values[key]) || 1e-9]).range([0, WIDTH]);
    const svg = d3.create("svg").attr("class", className)
      .attr("viewBox", [0, 0, LEFT + WIDTH + 90, 24 + rows.length * BAR]).attr("width", "100%");
    svg.append("text").attr("class", "chart-title").attr("x", 4).attr("y", 14).text(title);
    const bar = svg.append("g").selectAll("g").data(rows).join("g")
      .attr("transform", (r, i) => `translate(0,${24 + i * BAR})`);
    bar.append("text").attr("class", "lane-label").attr("x", 4).attr("y", BAR / 2 + 4)
      .text((r) => r.name.length > 36 ? r.name.slice(0, 35) + "\u2026" : r.name);
    bar.append("rect").attr("class", barClass).attr("x", LEFT).attr("y", 3).attr("height", BAR - 6)
      .attr("width", (r) => Math.max(1, x(r.values[key])))
      .attr("data-name", (r) => r.name).attr("data-value", (r) => r.values[key])
      .append("title").text(hover);
    bar.append("text").attr("class", "bar-value").attr("x", (r) => LEFT + Math.max(1, x(r.values[key])) + 4)
      .attr("y", BAR / 2 + 4).text((r) => Render.formatValue(r.values[key], unit));
    return svg.node();
  }

  const callFigures = (r) => `${r.name}\nMPI time: ${Render.formatValue(r.values.mpitime, "sec.")} s\n` +
    `calls: ${r.values.calls}\nbytes sent: ${r.values.mpibytessent}\nbytes received: ${r.values.mpibytesrecv}`;

  function bytesMatrix(bytes) {
    const senders = bytes.rows.map((r) => r.name);
    const receivers = bytes.metrics.map((m) => m.title);
    const largest = d3.max(bytes.rows, (r) => d3.max(bytes.metrics, (m) => r.values[m.spec] || 0)) || 1;
    const colour = d3.scaleSequential(d3.interpolateBlues).domain([0, largest]);
    const top = 52;
    const svg = d3.create("svg").attr("class", "mpi-chart-matrix")
      .attr("viewBox", [0, 0, 120 + receivers.length * CELL + 10, top + senders.length * CELL + 10])
      .attr("width", Math.min(900, 130 + receivers.length * CELL));
    svg.append("text").attr("class", "chart-title").attr("x", 4).attr("y", 14).text("Bytes sent, sender by receiver");
    // Columns named by the receiver's rank alone ("to rank 3": 3), under one heading.
    svg.append("text").attr("class", "lane-label").attr("x", 120).attr("y", top - 20).text("to rank");
    svg.append("g").selectAll("text").data(receivers).join("text").attr("class", "lane-label")
      .attr("x", (m, i) => 120 + i * CELL + CELL / 2).attr("y", top - 6).attr("text-anchor", "middle")
      .text((m) => m.replace(/^to (rank )?/, ""));
    const cells = [];
    bytes.rows.forEach((r, i) => bytes.metrics.forEach((m, j) =>
      cells.push({ sender: r.name, receiver: m.title, i, j, value: r.values[m.spec] || 0 })));
    svg.append("g").selectAll("text").data(senders).join("text").attr("class", "lane-label")
      .attr("x", 4).attr("y", (s, i) => top + i * CELL + CELL / 2 + 4).text((s) => s);
    const cell = svg.append("g").selectAll("rect").data(cells).join("rect").attr("class", "matrix-cell")
      .attr("x", (c) => 120 + c.j * CELL).attr("y", (c) => top + c.i * CELL)
      .attr("width", CELL - 2).attr("height", CELL - 2).attr("fill", (c) => colour(c.value))
      .attr("data-sender", (c) => c.sender).attr("data-receiver", (c) => c.receiver).attr("data-bytes", (c) => c.value);
    cell.append("title").text((c) => `${c.sender} ${c.receiver}: ${c.value} bytes`);
    return svg.node();
  }

  // `views`: -mpi_ranks's, -mpi_messages's and -mpi_stats's documents.
  function draw(views) {
    const box = document.createElement("div");
    box.className = "mpi-chart-box";
    const ranks = tableTitled(views[0], RANKS);
    const bytes = tableTitled(views[1], BYTES);
    const sizes = tableTitled(views[1], SIZES);
    const functions = tableTitled(views[2], FUNCTIONS);
    if (!ranks || !ranks.rows.length) {
      box.append(Render.el("p", "caption", "No MPI ranks in the selection."));
      return box;
    }
    box.append(bars(ranks, "mpitime", "sec.", "MPI time by rank (seconds)", "mpi-chart-time", "rank-bar", callFigures));
    if (bytes && bytes.rows.length) box.append(bytesMatrix(bytes));
    if (functions && functions.rows.length)
      box.append(bars(functions, "mpitime", "sec.", "MPI time by function (seconds)", "mpi-chart-functions",
        "function-bar", callFigures));
    if (sizes && sizes.rows.length)
      box.append(bars(sizes, "messages", "count", "Messages sent by size", "mpi-chart-sizes", "size-bar",
        (r) => `${r.name}\nmessages: ${r.values.messages}\nbytes: ${r.values.bytes}`));
    return box;
  }

  return { draw };
})();
