// The timeline: one lane per thread (per rank and thread for MPI), each
// plugin's events binned over the run: CPU time or call time as the busy
// share of a bin, other events as counts scaled to the busiest bin. Drag
// across a lane to zoom to that time range.
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
    return k === "cpu" ? "CPU time" : k === "call" ? "time in calls" : "events";
  };

  Timeline.prototype.seconds = function (bin) {
    return (bin * this.data.bin_ns / 1e9).toFixed(3) + " s";
  };

  Timeline.prototype.render = function () {
    this.container.replaceChildren();
    for (const lane of this.data.lanes) {
      const row = document.createElement("div");
      row.className = "lane";
      row.dataset.tid = lane.tid;
      const label = document.createElement("div");
      label.className = "lane-label";
      label.textContent = `Thread ${lane.thread} (${lane.tid}) · ${lane.process}`;
      label.title = label.textContent;
      const canvas = document.createElement("canvas");
      row.append(label, canvas);
      this.container.appendChild(row);
      this.draw(canvas, lane);
      this.interact(canvas, lane);
    }
  };

  Timeline.prototype.draw = function (canvas, lane) {
    const width = canvas.clientWidth || 800, height = 36;
    canvas.width = width;
    canvas.height = height;
    const g = canvas.getContext("2d");
    g.clearRect(0, 0, width, height);
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
