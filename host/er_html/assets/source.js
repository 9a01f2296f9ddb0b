// Annotated source of the hottest functions, as er_print -source prints
// it: each line with its metrics, hot lines marked.
"use strict";

const LumenSource = (() => {
  function show(sources, name, container) {
    container.replaceChildren();
    const doc = sources[name];
    if (!doc) return;
    if (doc.unavailable) {
      container.appendChild(LumenTables.el("p", { class: "warning" }, doc.unavailable));
      return;
    }
    const tables = doc.rows ? [doc] : (doc.tables || []);
    for (const t of tables) {
      if (!t.rows) continue;
      const table = LumenTables.el("table", { class: "data source" });
      const head = LumenTables.el("tr");
      for (const m of t.metrics) head.appendChild(LumenTables.el("th", {}, m.title));
      head.appendChild(LumenTables.el("th", {}, "Line"));
      head.appendChild(LumenTables.el("th", {}, "Source"));
      table.appendChild(head);
      for (const row of t.rows) {
        const tr = LumenTables.el("tr");
        if (row.marker && row.marker.trim()) tr.classList.add("hot");  // "##" at or above -sthresh
        for (const m of t.metrics)
          tr.appendChild(LumenTables.el("td", { class: "num" }, LumenTables.formatValue(row.values[m.spec], m.unit)));
        tr.appendChild(LumenTables.el("td", { class: "num line" }, row.line !== undefined ? String(row.line) : ""));
        const code = LumenTables.el("td");
        code.appendChild(LumenTables.el("pre", { class: "src" }, row.source !== undefined ? row.source : row.name));
        tr.appendChild(code);
        table.appendChild(tr);
      }
      container.appendChild(table);
    }
  }

  function init(sources, order, select, container, leftOut) {
    if (leftOut) {
      select.hidden = true;
      container.appendChild(LumenTables.el("p", { class: "warning", id: "sources-left-out" }, leftOut));
      return;
    }
    const names = order || Object.keys(sources);
    for (const n of names) select.appendChild(LumenTables.el("option", { value: n }, n));
    select.addEventListener("change", () => show(sources, select.value, container));
    if (names.length) show(sources, names[0], container);
    else container.appendChild(LumenTables.el("p", {}, "No function had a metric to annotate."));
  }

  return { init, show };
})();
