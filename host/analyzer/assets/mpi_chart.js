// The MPI Chart tab, drawn from the mpi plugin's -mpi_ranks and
// -mpi_messages with d3: each rank's MPI time as a bar (its calls and bytes
// on hover), and the bytes each rank sent to each other as a matrix, sender
// by row and receiver by column, shaded by their share of the largest.
// Names go in as text.
"use strict";

const MpiChart = (() => {
  const LEFT = 260;
  const BAR = 22;
  const WIDTH = 700;
  const CELL = 46;
  const RANKS = "MPI ranks";
  const BYTES = "Bytes sent: sender (row) x receiver (column)";

  const tableTitled = (view, title) => ((view && view.tables) || []).find((t) => t.title === title);

  function timeBars(ranks) {
    const rows = ranks.rows;
    const x = d3.scaleLinear().domain([0, d3.max(rows, (r) => r.values.mpitime) || 1e-9]).range([0, WIDTH]);
    const svg = d3.create("svg").attr("class", "mpi-chart-time")
      .attr("viewBox", [0, 0, LEFT + WIDTH + 90, 24 + rows.length * BAR]).attr("width", "100%");
    svg.append("text").attr("class", "chart-title").attr("x", 4).attr("y", 14).text("MPI time by rank (seconds)");
    const bar = svg.append("g").selectAll("g").data(rows).join("g")
      .attr("transform", (r, i) => `translate(0,${24 + i * BAR})`);
    bar.append("text").attr("class", "lane-label").attr("x", 4).attr("y", BAR / 2 + 4)
      .text((r) => r.name.length > 36 ? r.name.slice(0, 35) + "\u2026" : r.name);
    bar.append("rect").attr("class", "rank-bar").attr("x", LEFT).attr("y", 3).attr("height", BAR - 6)
      .attr("width", (r) => Math.max(1, x(r.values.mpitime)))
      .attr("data-name", (r) => r.name).attr("data-value", (r) => r.values.mpitime)
      .append("title").text((r) => `${r.name}\nMPI time: ${Render.formatValue(r.values.mpitime, "sec.")} s\n` +
        `calls: ${r.values.calls}\nbytes sent: ${r.values.mpibytessent}\nbytes received: ${r.values.mpibytesrecv}`);
    bar.append("text").attr("class", "bar-value").attr("x", (r) => LEFT + Math.max(1, x(r.values.mpitime)) + 4)
      .attr("y", BAR / 2 + 4).text((r) => Render.formatValue(r.values.mpitime, "sec."));
    return svg.node();
  }

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

  // `views`: -mpi_ranks's and -mpi_messages's documents.
  function draw(views) {
    const box = document.createElement("div");
    box.className = "mpi-chart-box";
    const ranks = tableTitled(views[0], RANKS);
    const bytes = tableTitled(views[1], BYTES);
    if (!ranks || !ranks.rows.length) {
      box.append(Render.el("p", "caption", "No MPI ranks in the selection."));
      return box;
    }
    box.append(timeBars(ranks));
    if (bytes && bytes.rows.length) box.append(bytesMatrix(bytes));
    return box;
  }

  return { draw };
})();
