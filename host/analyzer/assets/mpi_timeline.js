// The MPI Timeline tab, drawn from the mpi plugin's -mpi_timeline with d3: a
// lane per rank, time across in seconds since the selection's first MPI
// event; each MPI call a box from its entry to its return, coloured by
// function; each message a line from its sender's lane at the send's
// return to its receiver's lane at the receive's completion. The wheel
// zooms the time axis, a drag pans it; hovering names a call or a message.
// A job of more than DRAWN calls is drawn up to the start of its DRAWN-th
// call, every rank's calls and messages till then: a browser keeps some
// tens of thousands of shapes responsive (the server lists DRAWN + 1 rows
// of each table at most), and a time filter shows any other stretch: a
// button selects the stretch in view everywhere, each rank's experiment by
// its own times (the view's table of where each experiment starts on the
// timeline and how fast its clock runs there). Names go in as text.
"use strict";

const MpiTimeline = (() => {
  const LANE = 40;
  const LEFT = 80;
  const WIDTH = 1200;
  const AXIS = 30;
  const CALLS = "MPI calls in time";
  const MESSAGES = "Messages from the send";
  const DRAWN = 20000;
  const EXPERIMENTS = "Each rank's experiment on the timeline";

  const tableStarting = (view, title) => (view.tables || []).find((t) => t.title.startsWith(title));

  // The filter that keeps the timeline's stretch [from, to] (seconds since
  // its zero): in each rank's experiment, the times since its start that
  // its clock shows then, whole nanoseconds around them.
  function stretchFilter(experiments, from, to) {
    return experiments.rows.map((r) => {
      const rate = 1 + r.values.drift_ppm / 1e6;
      const low = Math.max(0, Math.floor(((from - r.values.start) / rate) * 1e9));
      const high = Math.max(0, Math.ceil(((to - r.values.start) / rate) * 1e9));
      return `(EXPID == ${r.values.experiment} && TSTAMP >= ${low} && TSTAMP <= ${high})`;
    }).join(" || ");
  }

  function draw(view, ctx) {
    const box = document.createElement("div");
    box.className = "mpi-timeline-box";
    const calls = tableStarting(view, CALLS);
    const messages = tableStarting(view, MESSAGES);
    if (!calls || !calls.rows.length) {
      box.append(Render.el("p", "caption", "No MPI calls in the selection."));
      return box;
    }
    const listed = calls.rows.length;
    // The selection's calls, of which the server may list fewer.
    const total = view.summary && view.summary.calls !== undefined ? Number(view.summary.calls) : listed;
    let callRows = calls.rows;
    let messageRows = messages ? messages.rows : [];
    let cutoff = Infinity;
    if (listed > DRAWN) {
      cutoff = callRows.map((r) => r.values.start).sort((a, b) => a - b)[DRAWN];
      callRows = callRows.filter((r) => r.values.start < cutoff);
      messageRows = messageRows.filter((r) => r.values.sent < cutoff);
    }
    const ranks = Array.from(new Set(callRows.map((r) => r.values.rank))).sort((a, b) => a - b);
    const laneOf = new Map(ranks.map((rank, i) => [rank, i]));
    const laneY = (rank) => AXIS + laneOf.get(rank) * LANE;
    const end = d3.max(callRows, (r) => r.values.start + r.values.duration);
    const messageEnd = messageRows.length ? d3.max(messageRows, (r) => r.values.received) : 0;
    const x0 = d3.scaleLinear().domain([0, Math.max(end, messageEnd) || 1e-6]).range([LEFT, LEFT + WIDTH]);
    let x = x0;
    const byTime = d3.rollups(callRows, (v) => d3.sum(v, (r) => r.values.duration), (r) => r.name)
      .sort((a, b) => b[1] - a[1]);
    const palette = d3.schemeTableau10;
    const colour = new Map(byTime.slice(0, palette.length).map(([name], i) => [name, palette[i]]));
    const colourOf = (name) => colour.get(name) || "#9a9a9a";

    box.append(Render.el("p", "caption",
      `${callRows.length} MPI calls on ${ranks.length} ranks, ${messageRows.length} messages ` +
      "from send to receive; the wheel zooms time, a drag pans it"));
    if (listed > DRAWN)
      box.append(Render.el("p", "caption",
        `Drawn up to ${cutoff} s after the selection's first MPI event, where the first ${DRAWN} of ${total} ` +
        `calls start; the tables below list ${listed < total ? "the first " + listed : "all"} (er_print -mpi_timeline ` +
        "lists all), and a time filter draws another stretch."));
    const experiments = tableStarting(view, EXPERIMENTS);
    const select = Render.el("button", "mpi-select-stretch", "");
    select.type = "button";
    select.disabled = !experiments || !experiments.rows.length || !ctx || !ctx.onTimeRange;
    select.addEventListener("click", () => {
      const [from, to] = x.domain();
      ctx.onTimeRange(stretchFilter(experiments, from, to));
    });
    box.append(select);
    const height = AXIS + ranks.length * LANE + 6;
    const svg = d3.select(box).append("svg").attr("class", "mpi-timeline")
      .attr("viewBox", [0, 0, LEFT + WIDTH + 10, height]).attr("width", "100%");
    svg.append("defs").append("clipPath").attr("id", "mpi-timeline-clip")
      .append("rect").attr("x", LEFT).attr("y", 0).attr("width", WIDTH).attr("height", height);
    svg.append("g").selectAll("text").data(ranks).join("text").attr("class", "lane-label")
      .attr("x", 4).attr("y", (rank) => laneY(rank) + LANE / 2 + 4).text((rank) => `rank ${rank}`);
    const plot = svg.append("g").attr("clip-path", "url(#mpi-timeline-clip)");
    const boxes = plot.append("g").selectAll("rect").data(callRows).join("rect").attr("class", "mpi-call")
      .attr("y", (r) => laneY(r.values.rank) + 8).attr("height", LANE - 16)
      .attr("fill", (r) => colourOf(r.name))
      .attr("data-name", (r) => r.name).attr("data-rank", (r) => r.values.rank);
    boxes.append("title").text((r) =>
      `${r.name} on rank ${r.values.rank}\nfrom ${r.values.start} s for ${Render.formatValue(r.values.duration, "sec.")} s` +
      (r.values.peer >= 0 ? `\npeer: rank ${r.values.peer}` : "") +
      (r.values.bytes_sent ? `\nbytes sent: ${r.values.bytes_sent}` : "") +
      (r.values.bytes_received ? `\nbytes received: ${r.values.bytes_received}` : ""));
    const lines = plot.append("g").selectAll("line").data(messageRows).join("line")
      .attr("class", "mpi-message")
      .attr("y1", (r) => laneY(r.values.sender) + LANE / 2).attr("y2", (r) => laneY(r.values.receiver) + LANE / 2)
      .attr("data-sender", (r) => r.values.sender).attr("data-receiver", (r) => r.values.receiver)
      .attr("data-bytes", (r) => r.values.bytes);
    lines.append("title").text((r) =>
      `${r.name}\n${r.values.bytes} bytes, tag ${r.values.tag}\nsent ${r.values.sent} s, received ${r.values.received} s`);
    const axis = svg.append("g").attr("class", "axis").attr("transform", `translate(0,${AXIS - 4})`);

    function place() {
      boxes.attr("x", (r) => x(r.values.start))
        .attr("width", (r) => Math.max(1, x(r.values.start + r.values.duration) - x(r.values.start)));
      lines.attr("x1", (r) => x(r.values.sent)).attr("x2", (r) => x(r.values.received));
      axis.call(d3.axisTop(x).ticks(10).tickFormat((t) => t + " s"));
      const [from, to] = x.domain();
      Object.assign(select.dataset, { from: String(from), to: String(to) });
      select.textContent = `Select ${from.toFixed(6)}-${to.toFixed(6)} s (the stretch in view) in every tab`;
    }
    place();
    svg.call(d3.zoom().scaleExtent([1, 1e6]).translateExtent([[LEFT, 0], [LEFT + WIDTH, height]])
      .extent([[LEFT, 0], [LEFT + WIDTH, height]])
      .on("zoom", (event) => {
        x = event.transform.rescaleX(x0);
        place();
      }));

    const legend = Render.el("ul", "timeline-legend");
    for (const [name, time] of byTime.slice(0, palette.length)) {
      const item = Render.el("li", "", "");
      const swatch = Render.el("span", "swatch", "");
      swatch.style.background = colourOf(name);
      item.append(swatch, Render.el("span", "", `${name} (${Render.formatValue(time, "sec.")} s)`));
      legend.append(item);
    }
    box.append(legend);
    return box;
  }

  return { draw };
})();
