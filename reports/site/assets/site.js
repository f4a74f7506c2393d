// dbbench results site: renders the JSON embedded in the page. Every value from a result is
// inserted with textContent (never innerHTML); links go only to the site's own files.
"use strict";
(function () {
  const DATA = JSON.parse(document.getElementById("site-data").textContent);
  const app = document.getElementById("app");
  const ROOT = document.body.dataset.root || "";
  const ID = /^[0-9a-f]{16}$/;

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function link(text, href) {
    const a = el("a", text);
    a.href = href;
    return a;
  }
  // a result is named by what it is (engine, version, machine), its hash kept as the title
  function resultName(row) {
    const parts = [row.engine, row.version, row.system].filter(function (p) {
      return p !== undefined && p !== null && p !== "";
    });
    return parts.length ? parts.join(" ") : String(row.id);
  }
  function resultLink(row) {
    const e = ID.test(row.id) ? link(resultName(row), ROOT + "r/" + row.id + ".html") :
      el("span", resultName(row));
    e.title = "result " + row.id;
    return e;
  }
  // numbers for people: thousands separators, four significant digits below 100, one
  // decimal above (a raw float such as 14.624749827999949 never reaches the page)
  function fmt(v) {
    if (v === null || v === undefined || v === "") return "—";
    if (typeof v === "boolean") return v ? "yes" : "no";
    if (typeof v === "number" && isFinite(v)) {
      if (Number.isInteger(v)) return v.toLocaleString("en-US");
      if (Math.abs(v) >= 100) return v.toLocaleString("en-US", {maximumFractionDigits: 1});
      return v.toLocaleString("en-US", {maximumSignificantDigits: 4});
    }
    return String(v);
  }
  function cmp(a, b) {
    if (a === b) return 0;
    if (a === null || a === undefined || a === "") return 1;
    if (b === null || b === undefined || b === "") return -1;
    if (typeof a === "number" && typeof b === "number") return a - b;
    return String(a).localeCompare(String(b));
  }

  // A sortable table, drawn a page at a time: columns [key, title, numeric?]; rows are plain
  // objects. Sorting and filtering work on the rows array; only PAGE rows are in the DOM.
  const PAGE = 100;
  function table(columns, rows, extra) {
    const wrap = el("div", null, "paged");
    const t = el("table");
    const head = el("tr");
    let sortKey = null, dir = 1, start = 0, shown = rows;
    const body = el("tbody");
    const pager = el("div", null, "pager");
    const prev = el("button", "‹ previous"), next = el("button", "next ›"), where = el("span");
    prev.type = next.type = "button";
    prev.addEventListener("click", function () { start = Math.max(0, start - PAGE); draw(); });
    next.addEventListener("click", function () { start += PAGE; draw(); });
    pager.append(prev, where, next);
    columns.forEach(function (c) {
      const th = el("th", c[1]);
      th.dataset.key = c[0];
      th.addEventListener("click", function () {
        dir = sortKey === c[0] ? -dir : (c[2] ? -1 : 1);
        sortKey = c[0];
        head.querySelectorAll("th").forEach(function (h) { h.className = ""; });
        th.className = dir > 0 ? "sorted-asc" : "sorted-desc";
        fill();
      });
      head.appendChild(th);
    });
    const thead = el("thead");
    thead.appendChild(head);
    t.appendChild(thead);
    t.appendChild(body);
    function fill() {
      shown = rows.slice();
      if (sortKey) shown.sort(function (a, b) {
        const x = a[sortKey], y = b[sortKey];
        const blankX = x === null || x === undefined || x === "";
        const blankY = y === null || y === undefined || y === "";
        if (blankX || blankY) return blankX === blankY ? 0 : blankX ? 1 : -1;  // blanks last
        return dir * cmp(x, y);
      });
      start = 0;
      draw();
    }
    function draw() {
      if (start >= shown.length) start = Math.max(0, shown.length - PAGE);
      const rowsHere = shown.slice(start, start + PAGE);
      const frag = document.createDocumentFragment();
      rowsHere.forEach(function (r) {
        const tr = el("tr");
        tr.dataset.id = r.id;
        columns.forEach(function (c) {
          const td = el("td", null, c[2] ? "num" : "");
          td.dataset.key = c[0];
          if (c[0] === "id") td.appendChild(resultLink(r));
          else if (c[0] === "pick" && extra) td.appendChild(extra(r));
          else td.textContent = fmt(r[c[0]]);
          if (typeof r[c[0]] === "number") td.dataset.value = String(r[c[0]]);  // exact
          if (c[0] === "status" && r.published) td.className = "pub";
          tr.appendChild(td);
        });
        frag.appendChild(tr);
      });
      body.replaceChildren(frag);
      where.textContent = shown.length ? " rows " + (start + 1) + "–" + (start + rowsHere.length) +
        " of " + shown.length + " " : " no rows ";
      prev.disabled = start === 0;
      next.disabled = start + PAGE >= shown.length;
      pager.hidden = shown.length <= PAGE;
    }
    wrap.appendChild(t);
    wrap.appendChild(pager);
    wrap.table = t;
    wrap.refill = function (newRows) { rows = newRows; fill(); };
    fill();
    return wrap;
  }

  function select(name, values, onChange) {
    const label = el("label", name + " ");
    const s = el("select");
    s.name = name;
    s.appendChild(new Option("all", ""));
    values.forEach(function (v) { s.appendChild(new Option(String(v), String(v))); });
    s.addEventListener("change", onChange);
    label.appendChild(s);
    return [label, s];
  }
  // A tick box picking one result: ticked while the set ``picked`` holds its id.
  function pickBox(picked, r, onChange) {
    const box = el("input");
    box.type = "checkbox";
    box.value = r.id;
    box.checked = picked.has(r.id);
    box.addEventListener("change", function () {
      if (box.checked) picked.add(r.id); else picked.delete(r.id);
      onChange();
    });
    return box;
  }
  function distinct(rows, key) {
    return Array.from(new Set(rows.map(function (r) { return r[key]; }))).filter(function (v) {
      return v !== null && v !== undefined && v !== "";
    }).sort(cmp);
  }

  const TPCH = [["id", "result"], ["pick", "pick"], ["system", "system"], ["cpu", "processor"],
    ["cores", "cores", true], ["engine", "engine"], ["version", "version"], ["sf", "SF", true],
    ["streams", "streams", true], ["qphh", "QphH", true], ["power", "Power", true],
    ["throughput", "Throughput", true], ["price", "$/QphH", true], ["storage", "storage ratio", true], ["load", "load s", true],
    ["compliant", "compliant"], ["acid", "ACID"], ["status", "status"], ["host", "host noise"],
    ["date", "date"],
    ["kit", "kit"]];

  function tpchView() {
    const rows = DATA.rows;
    const picked = new Set();
    const go = link("per-query view of the picked results", "queries.html");
    go.id = "go-queries";
    function updateGo() { go.href = "queries.html#ids=" + Array.from(picked).join(","); }
    const t = table(TPCH, rows, function (r) {
      const box = pickBox(picked, r, updateGo);
      box.disabled = r.published;
      return box;
    });
    t.table.id = "landscape";
    const count = el("p", rows.length + " result(s)");
    count.id = "count";
    const bar = el("div", null, "filters");
    const filters = {};
    function apply() {
      const kept = rows.filter(function (r) {
        return Object.keys(filters).every(function (k) {
          const v = filters[k].value;
          return v === "" || String(k === "compliance" ? r.compliant : r[k]) === v;
        });
      });
      count.textContent = kept.length + " of " + rows.length + " result(s)";
      t.refill(kept);
    }
    [["sf", "SF"], ["engine", "engine"], ["system", "machine"]].forEach(function (f) {
      const pair = select(f[1], distinct(rows, f[0]), apply);
      filters[f[0]] = pair[1];
      bar.appendChild(pair[0]);
    });
    const comp = select("compliance", [], apply);
    comp[1].appendChild(new Option("compliant", "true"));
    comp[1].appendChild(new Option("not compliant", "false"));
    filters.compliance = comp[1];
    bar.appendChild(comp[0]);
    bar.appendChild(go);
    app.replaceChildren(bar, count, t);
  }

  // Inline SVG (no network, no inline style: presentation attributes only).
  const SVG = "http://www.w3.org/2000/svg";
  // twelve distinct colours: a site compares up to twelve results without a repeat
  const COLOURS = ["#2b6cb0", "#c05621", "#2f855a", "#6b46c1", "#b7791f", "#c53030", "#2c7a7b",
    "#97266d", "#1a202c", "#718096", "#d69e2e", "#3c366b"];
  function svg(tag, attrs, text) {
    const e = document.createElementNS(SVG, tag);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
    if (text !== undefined) e.textContent = String(text);
    return e;
  }

  // Bars per query: for each query a group of bars (one per result), height = ratio to the
  // best of that query (log scale), the exact seconds in each bar's title.
  function queryChart(chosen, queries) {
    const gap = 6, h = 180, top = 10, left = 40;
    // the chart fits a 1280 px page: bars narrow down (to 2 px) as results are added
    const barW = Math.max(2, Math.min(8, Math.floor(((1180 - left) / queries.length - gap) /
      Math.max(1, chosen.length))));
    const groupW = chosen.length * barW + gap;
    const w = left + queries.length * groupW + 10;
    const legend = 14 * chosen.length;  // one legend line per result: labels never overprint
    const chart = svg("svg", {width: w, height: h + 30 + legend,
      viewBox: "0 0 " + w + " " + (h + 30 + legend),
      role: "img", "aria-label": "per-query time relative to the best"});
    chart.id = "per-query-chart";
    let maxRatio = 1;
    const cells = [];
    // one result: each query against its fastest query; several: against the best result
    const all = [];
    chosen.forEach(function (r) { queries.forEach(function (q) { all.push(r.queries[String(q)]); }); });
    const fastest = Math.min.apply(null, all.filter(function (v) { return typeof v === "number"; }));
    queries.forEach(function (q) {
      const vals = chosen.map(function (r) { return r.queries[String(q)]; });
      const best = chosen.length === 1 ? fastest :
        Math.min.apply(null, vals.filter(function (v) { return typeof v === "number"; }));
      vals.forEach(function (v, i) {
        if (typeof v === "number" && best > 0) {
          cells.push([q, i, v, v / best]);
          maxRatio = Math.max(maxRatio, v / best);
        }
      });
    });
    const scale = Math.log(maxRatio * 1.05) || 1;
    [1, 2, 4, 10, 100].filter(function (r) { return r <= maxRatio * 1.05; }).forEach(function (r) {
      const y = top + h - (Math.log(r) / scale) * (h - 20) - 20;
      chart.appendChild(svg("line", {x1: left, x2: w, y1: y, y2: y, stroke: "#ddd"}));
      chart.appendChild(svg("text", {x: 2, y: y + 4, "font-size": 10}, "×" + r));
    });
    cells.forEach(function (c) {
      const qi = queries.indexOf(c[0]);
      const bh = 20 + (Math.log(c[3]) / scale) * (h - 20);
      const bar = svg("rect", {x: left + qi * groupW + c[1] * barW, y: top + h - bh, width: barW - 1,
        height: bh, fill: COLOURS[c[1] % COLOURS.length], "data-query": c[0],
        "data-id": chosen[c[1]].id, "data-seconds": c[2], "data-ratio": c[3]});
      bar.appendChild(svg("title", {}, "Q" + c[0] + " " + chosen[c[1]].engine + ": " + fmt(c[2]) +
        " s (×" + c[3].toFixed(2) + ")"));
      chart.appendChild(bar);
    });
    queries.forEach(function (q, qi) {
      chart.appendChild(svg("text", {x: left + qi * groupW, y: top + h + 14, "font-size": 10},
        "Q" + q));
    });
    chosen.forEach(function (r, i) {
      chart.appendChild(svg("rect", {x: left, y: top + h + 22 + 14 * i, width: 10, height: 10,
        fill: COLOURS[i % COLOURS.length]}));
      chart.appendChild(svg("text", {x: left + 14, y: top + h + 31 + 14 * i, "font-size": 10,
        class: "legend"}, fmt(r.engine) + " " + fmt(r.version) + " · " + fmt(r.system) +
        (r.label ? " · " + r.label : "")));
    });
    return chart;
  }

  // A line chart of relative throughput against the study's axis, with the ideal line.
  function scalingChart(study, n) {
    const w = 420, h = 240, left = 40, bottom = 30;
    const pts = study.points.filter(function (p) { return typeof p.relative === "number"; });
    const maxX = Math.max.apply(null, study.points.map(function (p) { return p.x; }).concat([1]));
    const maxY = Math.max.apply(null, pts.map(function (p) { return p.relative; }).concat([maxX / (pts.length ? pts[0].x : 1), 1]));
    const X = function (x) { return left + (x / maxX) * (w - left - 10); };
    const Y = function (y) { return h - bottom - (y / maxY) * (h - bottom - 10); };
    const chart = svg("svg", {width: w, height: h, viewBox: "0 0 " + w + " " + h, role: "img",
      "aria-label": "relative throughput against " + study.axis});
    chart.id = "scaling-chart-" + n;
    chart.appendChild(svg("line", {x1: left, y1: h - bottom, x2: w, y2: h - bottom, stroke: "#888"}));
    chart.appendChild(svg("line", {x1: left, y1: 0, x2: left, y2: h - bottom, stroke: "#888"}));
    chart.appendChild(svg("text", {x: w / 2, y: h - 4, "font-size": 11}, study.axis));
    chart.appendChild(svg("text", {x: 2, y: 12, "font-size": 11}, "relative"));
    if (pts.length) {
      const base = pts[0].x;
      chart.appendChild(svg("line", {x1: X(base), y1: Y(1), x2: X(maxX), y2: Y(maxX / base),
        stroke: "#bbb", "stroke-dasharray": "4 3"}));
      chart.appendChild(svg("polyline", {fill: "none", stroke: COLOURS[0], "stroke-width": 2,
        points: pts.map(function (p) { return X(p.x) + "," + Y(p.relative); }).join(" ")}));
    }
    pts.forEach(function (p) {
      const dot = svg("circle", {cx: X(p.x), cy: Y(p.relative), r: 4, fill: COLOURS[0],
        "data-x": p.x, "data-relative": p.relative});
      dot.appendChild(svg("title", {}, study.axis + " " + p.x + ": ×" + p.relative));
      chart.appendChild(dot);
      chart.appendChild(svg("text", {x: X(p.x) - 4, y: h - bottom + 14, "font-size": 10}, p.x));
    });
    return chart;
  }

  function scalingView() {
    const parts = [];
    DATA.studies.forEach(function (study, n) {
      parts.push(el("h2", study.title + " (" + study.source + ")"));
      parts.push(scalingChart(study, n));
      const t = table([["x", study.axis, true], ["relative", "relative throughput", true],
        ["per_hour", "query sets/h", true], ["efficiency", "efficiency", true],
        ["status", "status"]], study.points);
      t.table.id = "scaling-" + n;
      parts.push(t);
    });
    if (!parts.length) parts.push(el("p", "No scaling studies among the inputs."));
    app.replaceChildren.apply(app, parts);
  }

  function geomean(values) {
    if (!values.length) return null;
    return Math.exp(values.reduce(function (s, v) { return s + Math.log(v); }, 0) / values.length);
  }
  function ratioClass(r) {
    return r <= 1.1 ? "r1" : r <= 1.5 ? "r2" : r <= 2 ? "r3" : r <= 4 ? "r4" : "r5";
  }

  function queriesView() {
    const rows = DATA.rows.filter(function (r) { return !r.published; });
    const picked = new Set();
    const m = /ids=([0-9a-f,]*)/.exec(location.hash);
    if (m) m[1].split(",").forEach(function (id) { if (ID.test(id)) picked.add(id); });
    const picker = el("div", null, "picker");
    picker.id = "picker";
    rows.forEach(function (r) {
      const label = el("label");
      label.appendChild(pickBox(picked, r, draw));
      label.appendChild(document.createTextNode(
        " " + r.id + " " + fmt(r.engine) + " " + fmt(r.version) + " SF " + fmt(r.sf) +
        " on " + fmt(r.system) + " (" + fmt(r.date) + ")"));
      picker.appendChild(label);
    });
    const out = el("div");
    out.id = "per-query";
    function draw() {
      const chosen = rows.filter(function (r) { return picked.has(r.id); });
      out.replaceChildren();
      if (!chosen.length) { out.appendChild(el("p", "Pick results above.")); return; }
      const sfs = distinct(chosen, "sf");
      if (sfs.length > 1) {
        out.appendChild(el("p", "Refusing to compare results of different scale factors (" +
          sfs.join(", ") + "): pick results of one scale factor.", "refusal"));
        return;
      }
      // the comparison rule's guards: other kit or query versions, or other substitution
      // parameters (seeds), measure other things: the times are shown, no best is named
      const why = [["kit", "kit versions"], ["query_version", "query versions"],
        ["seed", "substitution parameters (power-test seeds)"]].filter(function (g) {
        return distinct(chosen, g[0]).length > 1;
      }).map(function (g) { return g[1] + " differ (" + distinct(chosen, g[0]).join(", ") + ")"; });
      if (why.length) {
        const p = el("p", "Not comparable: " + why.join("; ") + ": no best is named and no " +
          "cell coloured.", "refusal");
        p.id = "not-comparable";
        out.appendChild(p);
      }
      const queries = [];
      for (let q = 1; q <= 22; q++) {
        if (chosen.some(function (r) { return r.queries[String(q)] !== undefined; })) queries.push(q);
      }
      const t = el("table");
      t.id = "per-query-table";
      const head = el("tr");
      head.appendChild(el("th", "query"));
      chosen.forEach(function (r) {
        const th = el("th", r.engine + " " + r.version + " · " + r.system);
        th.dataset.id = r.id;
        head.appendChild(th);
      });
      t.appendChild(head);
      const ratios = chosen.map(function () { return []; });
      const times = chosen.map(function () { return []; });
      queries.forEach(function (q) {
        const tr = el("tr");
        tr.dataset.query = String(q);
        tr.appendChild(el("td", "Q" + q));
        const vals = chosen.map(function (r) { return r.queries[String(q)]; });
        const best = Math.min.apply(null, vals.filter(function (v) { return typeof v === "number"; }));
        vals.forEach(function (v, i) {
          const td = el("td", fmt(v), "num");
          td.dataset.id = chosen[i].id;
          if (typeof v === "number") td.dataset.value = String(v);  // the exact seconds
          if (typeof v === "number" && best > 0 && !why.length) {
            const ratio = v / best;
            td.classList.add(ratioClass(ratio));
            td.title = "×" + ratio.toFixed(2) + " of the best";
            td.dataset.ratio = String(ratio);
            ratios[i].push(ratio);
            times[i].push(v);
          }
          tr.appendChild(td);
        });
        t.appendChild(tr);
      });
      [["geometric mean (s)", times], ["geometric mean of ratios", ratios]].forEach(function (g) {
        const tr = el("tr");
        tr.dataset.query = g[0];
        tr.appendChild(el("th", g[0]));
        g[1].forEach(function (vals, i) {
          const td = el("td", fmt(geomean(vals)), "num");
          td.dataset.id = chosen[i].id;
          tr.appendChild(td);
        });
        t.appendChild(tr);
      });
      out.appendChild(t);
      if (why.length) return;  // no heatmap and no chart relative to a best
      // the heatmap's key: each cell coloured by its time relative to the query's best
      const key = el("p", "Cell colour, time relative to the best result of the query: ", "legend");
      key.id = "heat-legend";
      [["r1", "up to ×1.1"], ["r2", "×1.5"], ["r3", "×2"], ["r4", "×4"], ["r5", "more"]].forEach(
        function (k) { key.appendChild(el("span", k[1], k[0] + " swatch")); });
      out.appendChild(key);
      out.appendChild(el("h2", "Time relative to the best (log scale; hover a bar for seconds)"));
      out.appendChild(queryChart(chosen, queries));
    }
    app.replaceChildren(picker, out);
    draw();
  }

  function simpleView(columns, id) {
    const t = table(columns, DATA.rows);
    t.table.id = id;
    app.replaceChildren(el("p", DATA.rows.length + " result(s)"), t);
  }

  // a family's page: the table of the columns its declaration gives (reports.family.SiteView)
  function tableView() {
    simpleView(DATA.columns, document.body.dataset.view);
  }

  function historyView() {
    const groups = {};
    DATA.rows.forEach(function (r) {
      const key = [r.engine, r.system, r.sf].join("\u0000");
      (groups[key] = groups[key] || []).push(r);
    });
    const parts = [];
    Object.keys(groups).sort().forEach(function (key) {
      const rows = groups[key].slice().sort(function (a, b) { return cmp(a.date, b.date); });
      const first = rows[0];
      parts.push(el("h2", fmt(first.engine) + " on " + fmt(first.system) + " at SF " + fmt(first.sf) +
        " (" + rows.length + " result(s))"));
      let prev = null;
      rows.forEach(function (r) {
        r.change = prev && prev.qphh && r.qphh ? ((r.qphh / prev.qphh - 1) * 100).toFixed(1) + " %" : "";
        prev = r;
      });
      parts.push(table([["id", "result"], ["date", "date"], ["version", "engine version"],
        ["kit", "kit"], ["qphh", "QphH", true], ["change", "vs previous"], ["power", "Power", true],
        ["throughput", "Throughput", true]], rows));
    });
    if (!parts.length) parts.push(el("p", "No local TPC-H results."));
    app.replaceChildren.apply(app, parts);
  }

  function excludedView() {
    const parts = [];
    [["refused", "Not results (damaged, foreign or unreadable)"],
     ["failed", "Refused by verify (figures do not follow, or the hash does not match)"]].forEach(function (s) {
      parts.push(el("h2", s[1] + ": " + DATA[s[0]].length));
      const ul = el("ul");
      ul.id = s[0];
      DATA[s[0]].forEach(function (x) {
        const li = el("li");
        li.appendChild(el("code", x.path));
        li.appendChild(document.createTextNode(": " + x.reason));
        ul.appendChild(li);
      });
      parts.push(ul);
    });
    app.replaceChildren.apply(app, parts);
  }

  function resultView() {
    const dl = el("table");
    dl.id = "result";
    Object.keys(DATA.row).forEach(function (k) {
      const tr = el("tr");
      tr.appendChild(el("th", k));
      tr.appendChild(el("td", fmt(DATA.row[k])));
      dl.appendChild(tr);
    });
    const links = el("ul");
    links.id = "result-links";
    const WHAT = {"full report": " — the audit report: compliance, every run's intervals, " +
      "its resource use (telemetry: CPU, memory, disk per phase) and the latency distributions",
      "raw JSON": " — the result file exactly as given (its sha256 is the one above)",
      "raw TOML": " — the published record exactly as given"};
    DATA.links.forEach(function (l) {
      if (/^[0-9a-f]{16}(\.report\.html|\.json|\.toml)$/.test(l[1])) {
        const li = el("li");
        li.appendChild(link(l[0], l[1]));
        li.appendChild(document.createTextNode(WHAT[l[0]] || ""));
        links.appendChild(li);
      }
    });
    const q = el("table");
    q.id = "result-queries";
    Object.keys(DATA.queries).sort(function (a, b) { return a - b; }).forEach(function (k) {
      const tr = el("tr");
      tr.appendChild(el("th", "Q" + k));
      tr.appendChild(el("td", fmt(DATA.queries[k]), "num"));
      q.appendChild(tr);
    });
    const parts = [links, dl, el("h2", "Power-test times (s)"), q];
    const qs = Object.keys(DATA.queries).map(Number).sort(function (a, b) { return a - b; });
    if (qs.length) {
      const row = Object.assign({}, DATA.row, {queries: DATA.queries});
      parts.push(el("h2", "Each query's time relative to the fastest query (log scale)"));
      parts.push(queryChart([row], qs));
    }
    app.replaceChildren.apply(app, parts);
  }

  const views = {
    tpch: tpchView,
    queries: queriesView,
    history: historyView,
    scaling: scalingView,
    excluded: excludedView,
    result: resultView,
  };
  (views[document.body.dataset.view] || tableView)();
  document.body.dataset.ready = "1";
  // when the page became usable, from the start of its navigation (benchmarks/site_build.py)
  if (window.performance && performance.mark) performance.mark("dbbench-ready");
})();
