// Turns er_print's JSON views into DOM: tables of metric columns (flat,
// a call tree, or a function with its callers and callees), lists of
// records, and sections. Every name and value goes in as text.
"use strict";

const Render = (() => {
  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  // A metric's value as er_print's text shows it: seconds to the
  // millisecond, percentages to a tenth, counts whole.
  function formatValue(value, unit) {
    if (typeof value !== "number") return String(value);
    if (unit === "percent" || unit === "%") return value.toFixed(1);
    if (Number.isInteger(value)) return value.toLocaleString("en-US");
    if (unit === "sec." || unit === "seconds") return value.toFixed(3);
    return String(Number(value.toPrecision(6)));
  }

  // The members of a row that are shown as columns of their own.
  const ROW_MEMBERS = new Set(["name", "load_object", "values", "depth", "marker", "callers", "callees", "stack", "kind",
    "line"]);

  function extraKeys(rows) {
    const keys = [];
    for (const row of rows)
      for (const key of Object.keys(row))
        if (!ROW_MEMBERS.has(key) && !keys.includes(key)) keys.push(key);
    return keys;
  }

  // "e.%totalcpu" -> "e.totalcpu": the sort spec of a metric column.
  function sortSpecOf(spec) {
    const match = /^([eia])\.%?([A-Za-z0-9_]+)$/.exec(spec);
    return match ? match[1] + "." + match[2] : null;
  }

  function metricHeader(table, ctx) {
    const head = el("tr");
    for (const m of table.metrics) {
      const th = el("th", "", m.title + (m.unit ? " (" + m.unit + ")" : ""));
      th.dataset.spec = m.spec;
      th.title = m.spec;
      const sort = sortSpecOf(m.spec);
      if (sort && ctx.onSort) {
        th.classList.add("sortable");
        if (ctx.sort === sort) th.classList.add("sorted");
        th.addEventListener("click", () => ctx.onSort(sort));
      }
      head.append(th);
    }
    return head;
  }

  function metricCells(tr, table, row) {
    for (const m of table.metrics) {
      const value = row.values ? row.values[m.spec] : undefined;
      const td = el("td", "num", value === undefined ? "" : formatValue(value, m.unit));
      td.dataset.spec = m.spec;
      if (value !== undefined) td.dataset.value = String(value);
      tr.append(td);
    }
  }

  // A row's call stack (leaks, allocations, I/O by stack), leaf first, each
  // frame a function that opens its callers and callees.
  function stackDetails(stack, ctx) {
    const details = el("details", "stack");
    details.append(el("summary", "", "call stack (" + stack.length + " frames)"));
    const list = el("ol");
    for (const frame of stack) {
      const item = el("li");
      const a = el("a", "fn", frame.function);
      if (ctx.onFunction) a.addEventListener("click", () => ctx.onFunction(frame.function));
      item.append(a);
      if (frame.load_object) item.append(el("span", "object", " " + frame.load_object));
      list.append(item);
    }
    details.append(list);
    return details;
  }

  function nameCell(row, ctx, clickable) {
    const td = el("td", "name");
    const indent = row.depth ? "  ".repeat(row.depth) : "";
    if (clickable && ctx.onFunction && row.name && !row.name.startsWith("<Total>")) {
      if (indent) td.append(document.createTextNode(indent));
      const a = el("a", "fn", row.name);
      a.addEventListener("click", () => ctx.onFunction(row.name));
      td.append(a);
    } else {
      td.textContent = indent + (row.marker ? row.marker + " " : "") + row.name;
    }
    if (Array.isArray(row.stack) && row.stack.length) td.append(stackDetails(row.stack, ctx));
    return td;
  }

  function rowOf(table, row, ctx, keys, clickable) {
    const tr = el("tr");
    tr.dataset.name = row.name;
    if (row.name === "<Total>") tr.classList.add("total");
    if (row.kind === "file") tr.classList.add("file");
    if (row.marker && row.marker.includes("#")) tr.classList.add("hot");
    if (row.kind) tr.dataset.kind = row.kind;
    metricCells(tr, table, row);
    if (ctx.lineColumn) tr.append(el("td", "num line", row.line));
    tr.append(nameCell(row, ctx, clickable));
    for (const key of keys) {
      // A thread's number selects it (-thread_select) for the other tabs.
      if (key === "thread" && ctx.onThread && row[key]) {
        const td = el("td");
        const a = el("a", "fn thread-link", row[key]);
        a.addEventListener("click", () => ctx.onThread(row[key]));
        td.append(a);
        tr.append(td);
      } else tr.append(el("td", "", row[key]));
    }
    return tr;
  }

  function headerWithName(table, ctx, keys) {
    const head = metricHeader(table, ctx);
    if (ctx.lineColumn) head.append(el("th", "", "Line"));
    head.append(el("th", "", "Name"));
    for (const key of keys) head.append(el("th", "", key));
    return head;
  }

  function flatTable(table, ctx) {
    const t = el("table", "metric-table");
    // Source and disassembly: the line number in a column of its own.
    ctx = Object.assign({}, ctx, { lineColumn: table.rows.some((r) => r.line !== undefined) });
    const keys = extraKeys(table.rows);
    t.append(headerWithName(table, ctx, keys));
    return inPages(t, table.rows, TABLE_PAGE, (row) => rowOf(table, row, ctx, keys, ctx.clickNames));
  }

  // Rows in pre-order with their depth: each row's subtree opens and
  // closes; the top two levels start open.
  function treeTable(table, ctx) {
    const t = el("table", "metric-table tree");
    const keys = extraKeys(table.rows).filter((k) => k !== "depth");
    t.append(headerWithName(table, ctx, keys));
    const trs = table.rows.map((row) => rowOf(table, row, ctx, keys, true));
    const depth = table.rows.map((row) => row.depth || 0);
    const hasChildren = (i) => i + 1 < depth.length && depth[i + 1] > depth[i];
    const open = depth.map((d) => d < 1);
    function refresh() {
      let hiddenBelow = Infinity;
      trs.forEach((tr, i) => {
        if (depth[i] <= hiddenBelow) hiddenBelow = Infinity;
        const visible = depth[i] <= hiddenBelow;
        tr.style.display = visible ? "" : "none";
        if (visible && !open[i] && hasChildren(i)) hiddenBelow = depth[i];
        const toggle = tr.querySelector(".toggle");
        if (toggle) toggle.textContent = open[i] ? "\u25BE" : "\u25B8";
      });
    }
    trs.forEach((tr, i) => {
      tr.dataset.depth = String(depth[i]);
      if (!hasChildren(i)) return;
      const toggle = el("span", "toggle");
      toggle.addEventListener("click", () => {
        open[i] = !open[i];
        refresh();
      });
      const cell = tr.querySelector("td.name");
      cell.insertBefore(toggle, cell.firstChild);
      tr.classList.add("branch");
    });
    trs.forEach((tr) => t.append(tr));
    refresh();
    return t;
  }

  // csingle: for each function of the name, its callers, itself, its callees.
  function callersCallees(table, ctx) {
    const box = el("div", "callers-callees");
    for (const row of table.rows) {
      const t = el("table", "metric-table");
      const keys = [];
      t.append(headerWithName(table, ctx, keys));
      const part = (title, rows, cls) => {
        const tr = el("tr", "part");
        const th = el("th", "", title);
        th.colSpan = table.metrics.length + 1;
        tr.append(th);
        t.append(tr);
        for (const r of rows) {
          const line = rowOf(table, r, ctx, keys, true);
          line.classList.add(cls);
          t.append(line);
        }
      };
      part("Callers", row.callers || [], "caller");
      part("Function", [row], "focus");
      part("Callees", row.callees || [], "callee");
      box.append(t);
      if (ctx.onCode) {
        const links = el("p");
        for (const [label, tab] of [["Source", "source"], ["Disassembly", "disasm"]]) {
          const a = el("a", "fn code-link", label + " of " + row.name);
          a.addEventListener("click", () => ctx.onCode(row.name, tab));
          links.append(a, document.createTextNode("  "));
        }
        box.append(links);
      }
    }
    return box;
  }

  function metricTable(table, ctx) {
    if (table.rows.some((r) => r.callers || r.callees)) return callersCallees(table, ctx);
    if (table.rows.some((r) => typeof r.depth === "number")) return treeTable(table, ctx);
    return flatTable(table, ctx);
  }

  // A field's words (the view's "labels", as er_print's text form says
  // it), the key itself in its tooltip; the key where there are none.
  function labelCell(tag, key, labels) {
    const cell = el(tag, "", (labels && labels[key]) || key);
    cell.title = key;
    return cell;
  }

  // A long table (an MPI job's every call) is shown a page at a time:
  // laying out tens of thousands of rows holds the page for tens of
  // seconds. The rest follows a page per click, or all at once. The table
  // says how many rows it has (data-rows) and shows (data-shown).
  const TABLE_PAGE = 2000;
  const RECORDS_PAGE = 1000;

  function inPages(table, items, page, rowOfItem) {
    const box = el("div", "paged");
    const more = el("p", "more-rows");
    let shown = 0;
    function showUpTo(count) {
      const rows = document.createDocumentFragment();
      for (; shown < Math.min(count, items.length); ++shown) rows.append(rowOfItem(items[shown]));
      table.append(rows);
      table.dataset.shown = String(shown);
      more.replaceChildren();
      if (shown >= items.length) return;
      const n = (x) => x.toLocaleString("en-US");
      more.append(el("span", "", n(shown) + " of " + n(items.length) + " rows shown. "));
      const next = el("button", "show-more", "Show " + n(Math.min(page, items.length - shown)) + " more");
      next.addEventListener("click", () => showUpTo(shown + page));
      const all = el("button", "show-all", "Show all");
      all.addEventListener("click", () => showUpTo(items.length));
      more.append(next, " ", all);
    }
    table.dataset.rows = String(items.length);
    showUpTo(page);
    box.append(table, more);
    return box;
  }

  function recordsTable(records, labels) {
    const t = el("table", "records");
    const keys = [];
    const seen = new Set();
    for (const r of records)
      for (const k of Object.keys(r))
        if (!seen.has(k)) {
          seen.add(k);
          keys.push(k);
        }
    const head = el("tr");
    for (const k of keys) head.append(labelCell("th", k, labels));
    t.append(head);
    return inPages(t, records, RECORDS_PAGE, (r) => {
      const tr = el("tr");
      for (const k of keys) {
        const v = r[k];
        tr.append(el("td", typeof v === "number" ? "num" : "", v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : v));
      }
      return tr;
    });
  }

  function members(object, labels) {
    const dl = el("dl", "members");
    for (const [k, v] of Object.entries(object)) {
      dl.append(labelCell("dt", k, labels));
      dl.append(el("dd", "", typeof v === "object" && v !== null ? JSON.stringify(v) : v));
    }
    return dl;
  }

  // Any view: its tables, record lists, sections and summaries, in order.
  function view(json, ctx) {
    const box = el("div", "view");
    if (json === null || json === undefined) {
      box.append(el("p", "empty", "This view has nothing to show."));
      return box;
    }
    if (json.views) {
      for (const v of json.views) box.append(view(v, ctx));
      return box;
    }
    if (json.metrics && json.rows) box.append(metricTable(json, ctx));
    for (const [key, value] of Object.entries(json)) {
      if (["view", "metrics", "rows", "title", "data", "labels"].includes(key)) continue;
      if (key === "sections") {
        for (const s of value) {
          box.append(el("h2", "", s.title || s.data));
          box.append(view(s, ctx));
        }
      } else if (key === "tables") {
        for (const t of value) {
          if (t.title) box.append(el("h3", "", t.title));
          box.append(metricTable(t, ctx));
        }
      } else if (Array.isArray(value)) {
        box.append(el("h3", "", key));
        const wide = value.length && typeof value[0] === "object" && Object.keys(value[0]).length > 8;
        if (wide) {
          // A few records of many fields (header, overview): each its own list.
          for (const record of value) box.append(members(record, json.labels));
        } else if (value.length && typeof value[0] === "object") box.append(recordsTable(value, json.labels));
        else box.append(el("p", "", value.join(", ")));
      } else if (typeof value === "object" && value !== null) {
        box.append(el("h3", "", key));
        box.append(members(value, json.labels));
      } else {
        box.append(members({ [key]: value }, json.labels));
      }
    }
    return box;
  }

  return { el, view, formatValue };
})();
