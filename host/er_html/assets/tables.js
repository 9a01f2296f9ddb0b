// Tables of the report: any er_print JSON document, the function table
// (sortable by any column, searchable) and callers-callees (navigate by
// clicking a caller or callee).
"use strict";

const LumenTables = (() => {
  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // A cell as er_print's text shows it: seconds with 3 decimals, % with 2.
  function formatValue(value, unit) {
    if (typeof value !== "number") return String(value);
    if (unit === "%") return value.toFixed(2);
    if (unit === "s" || unit === "seconds") return value.toFixed(3);
    return Number.isInteger(value) ? String(value) : value.toFixed(3);
  }

  function metricTable(doc, options) {
    const table = el("table", { class: "data" });
    const head = el("tr");
    head.appendChild(el("th", {}, "Name"));
    for (const m of doc.metrics) head.appendChild(el("th", { title: m.spec }, m.title + (m.unit ? " (" + m.unit + ")" : "")));
    table.appendChild(head);
    for (const row of doc.rows) {
      const tr = el("tr", { "data-name": row.name });
      if (row.marker && row.marker.trim()) tr.classList.add("hot");
      const name = el("td");
      if (options && options.onName) {
        const a = el("a", { class: "fn" }, row.name);
        a.addEventListener("click", () => options.onName(row.name));
        name.appendChild(a);
      } else {
        name.textContent = row.name;
      }
      tr.appendChild(name);
      for (const m of doc.metrics)
        tr.appendChild(el("td", { class: "num", "data-spec": m.spec, "data-value": String(row.values[m.spec]) },
          formatValue(row.values[m.spec], m.unit)));
      table.appendChild(tr);
    }
    return table;
  }

  // Records (a list of objects, or one object) as a two-way table.
  function recordTable(records) {
    const list = Array.isArray(records) ? records : [records];
    const keys = [];
    for (const r of list) for (const k of Object.keys(r)) if (!keys.includes(k)) keys.push(k);
    const table = el("table", { class: "data" });
    const head = el("tr");
    for (const k of keys) head.appendChild(el("th", {}, k));
    table.appendChild(head);
    for (const r of list) {
      const tr = el("tr");
      for (const k of keys) {
        const v = r[k];
        tr.appendChild(el("td", typeof v === "number" ? { class: "num" } : {},
          v === undefined || v === null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v)));
      }
      table.appendChild(tr);
    }
    return table;
  }

  // Any document er_print prints as JSON.
  function renderDocument(doc, container, title) {
    if (title) container.appendChild(el("h2", {}, title));
    if (!doc) return;
    if (doc.unavailable) {
      container.appendChild(el("p", { class: "warning" }, doc.unavailable));
      return;
    }
    if (doc.metrics && doc.rows) {
      container.appendChild(metricTable(doc));
      return;
    }
    for (const [key, value] of Object.entries(doc)) {
      if (key === "view") continue;
      if (key === "tables" && Array.isArray(value)) {
        for (const t of value) renderDocument(t, container, t.view || "");
        continue;
      }
      if (value && typeof value === "object" && Object.keys(value).length) {
        container.appendChild(el("h2", {}, key));
        container.appendChild(recordTable(value));
      }
    }
  }

  // The function table: click a header to sort by it, type to filter.
  function functionTable(doc, table, search, onName) {
    table.replaceChildren(...metricTable(doc, { onName }).childNodes);
    const headers = table.querySelectorAll("th");
    let sortColumn = -1, descending = true;
    headers.forEach((th, column) => th.addEventListener("click", () => {
      descending = sortColumn === column ? !descending : column > 0;
      sortColumn = column;
      const rows = Array.from(table.querySelectorAll("tr")).slice(1);
      const total = rows.filter(r => r.dataset.name === "<Total>");
      const others = rows.filter(r => r.dataset.name !== "<Total>");
      const key = r => column === 0 ? r.dataset.name : parseFloat(r.children[column].dataset.value);
      others.sort((a, b) => {
        const x = key(a), y = key(b);
        const order = x < y ? -1 : x > y ? 1 : 0;
        return descending ? -order : order;
      });
      for (const r of total.concat(others)) table.appendChild(r);
      headers.forEach(h => h.classList.remove("sorted"));
      th.classList.add("sorted");
    }));
    search.addEventListener("input", () => {
      const text = search.value.toLowerCase();
      for (const r of Array.from(table.querySelectorAll("tr")).slice(1))
        r.classList.toggle("hidden", text !== "" && !r.dataset.name.toLowerCase().includes(text));
    });
  }

  // Callers-callees of one function; clicking a caller or callee shows its own.
  function callersView(doc, container, name) {
    container.replaceChildren();
    const rows = doc && doc.rows ? doc.rows : [];
    const row = rows.find(r => r.name === name) || rows.find(r => r.name !== "<Total>") || rows[0];
    if (!row) {
      container.appendChild(el("p", {}, "No callers-callees data."));
      return;
    }
    const show = n => callersView(doc, container, n);
    const part = (title, list, cls) => {
      container.appendChild(el("h2", {}, title));
      const t = metricTable({ metrics: doc.metrics, rows: list }, { onName: show });
      t.classList.add(cls);
      container.appendChild(t);
    };
    part("Callers", row.callers || [], "callers");
    part("Function", [{ name: row.name, values: row.values }], "selected-function");
    part("Callees", row.callees || [], "callees");
    container.dataset.function = row.name;
  }

  return { el, formatValue, renderDocument, functionTable, callersView, recordTable };
})();
