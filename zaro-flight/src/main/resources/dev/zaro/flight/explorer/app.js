// zaro explorer: the page served at / by `zaro serve --http-port` (docs/explorer.md). Plain
// JavaScript, no build step, nothing loaded from outside the server. A token, when the server
// wants one, is asked once per tab, kept in sessionStorage and sent as a header, never in a URL.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { nodes: [], array: null, lead: [], coords: {}, drawn: null, maps: {} };

// ---- requests ------------------------------------------------------------------------------
function enc(path) {
  return path.replace(/^\/+/, "").split("/").map(encodeURIComponent).join("/");
}
function arrayUrl(path, what, params) {
  const p = enc(path);
  const base = "/arrays/" + p + (what ? (p ? "/" : "") + what : "");
  const q = new URLSearchParams(params || {}).toString();
  return q ? base + "?" + q : base;
}
let tokenWaiters = [];
function askToken(message) {
  $("token-form").hidden = false;
  $("token-note").textContent = message;
  $("token").focus();
  return new Promise((resolve) => tokenWaiters.push(resolve));
}
$("token-form").addEventListener("submit", (e) => {
  e.preventDefault();
  sessionStorage.setItem("zaro-token", $("token").value.trim());
  $("token").value = "";
  $("token-form").hidden = true;
  const w = tokenWaiters;
  tokenWaiters = [];
  w.forEach((f) => f());
});
async function api(url) {
  for (;;) {
    const headers = { Accept: "application/json" };
    const token = sessionStorage.getItem("zaro-token");
    if (token) headers.Authorization = "Bearer " + token;
    const r = await fetch(url, { headers, cache: "no-store" });
    if (r.status === 401) {
      await askToken(token ? "the token was not accepted; try another" : "this server needs a token (kept in this tab only)");
      continue;
    }
    if (!r.ok) {
      let msg = r.status + " " + r.statusText;
      try { const j = await r.json(); msg = j.error + ": " + j.message; } catch (_) { /* not JSON */ }
      throw new Error(msg);
    }
    return r;
  }
}
const getJson = async (url) => (await api(url)).json();
function showError(e) {
  $("error").hidden = false;
  $("error").textContent = String(e && e.message ? e.message : e);
}
function clearError() { $("error").hidden = true; }

// ---- the hierarchy -------------------------------------------------------------------------
function clean(p) { return (p || "").replace(/^\/+|\/+$/g, ""); }
function fmtShape(s) { return "(" + (s || []).join(", ") + ")"; }
async function loadTree() {
  const doc = await getJson("/");
  state.nodes = doc.nodes;
  const byPath = new Map(doc.nodes.map((n) => [clean(n.path), n]));
  const root = $("tree");
  root.textContent = "";
  const add = (parentUl, node) => {
    const li = document.createElement("li");
    const name = clean(node.path).split("/").pop() || "/";
    if (node.node_type === "group") {
      li.className = "group";
      const span = document.createElement("span");
      span.textContent = name + "/";
      li.appendChild(span);
      const ul = document.createElement("ul");
      li.appendChild(ul);
      const kids = doc.nodes.filter((n) => clean(n.path) !== clean(node.path) && parentOf(clean(n.path)) === clean(node.path));
      kids.sort((a, b) => (a.node_type === b.node_type ? clean(a.path).localeCompare(clean(b.path)) : a.node_type === "group" ? -1 : 1));
      kids.forEach((k) => add(ul, k));
    } else {
      li.className = "array";
      const a = document.createElement("a");
      a.textContent = name;
      a.dataset.path = clean(node.path);
      a.addEventListener("click", () => openArray(clean(node.path)).catch(showError));
      li.appendChild(a);
      const meta = document.createElement("span");
      meta.className = "meta";
      meta.textContent = node.data_type + " " + fmtShape(node.shape);
      meta.dataset.path = clean(node.path);
      li.appendChild(meta);
    }
    parentUl.appendChild(li);
  };
  const top = byPath.get("");
  if (top && top.node_type === "array") add(root, top);
  else doc.nodes.filter((n) => clean(n.path) !== "" && parentOf(clean(n.path)) === "").forEach((n) => add(root, n));
  loadSizes().catch(() => {}); // sizes on disk are extra: the tree stands without them
}
// each array's size on disk (its stored chunks), when the store can tell without reading
async function loadSizes() {
  const doc = await getJson("/sizes.json");
  state.sizes = doc.known ? doc.arrays : {};
  document.querySelectorAll(".tree .meta[data-path]").forEach((m) => {
    const s = state.sizes[m.dataset.path];
    if (s) {
      m.textContent += " · " + fmtBytes(s.bytes);
      m.dataset.bytes = String(s.bytes);
    }
  });
  if (state.array && !$("array").hidden) showSize(clean(state.array.path));
}
function fmtBytes(n) {
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return (i === 0 ? String(n) : n.toFixed(n < 10 ? 2 : n < 100 ? 1 : 0)) + " " + units[i];
}
function showSize(path) {
  const s = (state.sizes || {})[path];
  const t = $("array-info");
  if (!s || t.querySelector("tr.size")) return;
  const after = Array.from(t.rows).findIndex((r) => r.cells[0].textContent === "format");
  const tr = t.insertRow(after < 0 ? -1 : after + 1);
  tr.className = "size";
  tr.dataset.bytes = String(s.bytes);
  tr.insertCell().textContent = "size on disk";
  tr.insertCell().textContent = fmtBytes(s.bytes) + " (" + s.keys + (s.keys === 1 ? " chunk" : " chunks") + " stored)";
}
function parentOf(p) { const i = p.lastIndexOf("/"); return i < 0 ? "" : p.slice(0, i); }
function node(path) { return state.nodes.find((n) => clean(n.path) === path); }

// ---- an array ------------------------------------------------------------------------------
function infoRow(table, key, value) {
  const tr = table.insertRow();
  tr.insertCell().textContent = key;
  tr.insertCell().textContent = value;
}
async function openArray(path) {
  clearError();
  const meta = node(path);
  state.array = meta;
  document.querySelectorAll(".tree a.selected").forEach((a) => a.classList.remove("selected"));
  const link = document.querySelector('.tree a[data-path="' + CSS.escape(path) + '"]');
  if (link) link.classList.add("selected");
  $("welcome").hidden = true;
  $("sql").hidden = true;
  $("array").hidden = false;
  const attrs = meta.attributes || {};
  $("array-title").textContent = "/" + path + (attrs.long_name ? " — " + attrs.long_name : "");
  const t = $("array-info");
  t.textContent = "";
  if (attrs.units !== undefined) infoRow(t, "units", attrs.units);
  if (attrs.long_name !== undefined) infoRow(t, "long_name", attrs.long_name);
  infoRow(t, "type", meta.data_type);
  infoRow(t, "shape", fmtShape(meta.shape));
  infoRow(t, "dimensions", (meta.dimension_names || []).join(", "));
  if (meta.chunk_shape) infoRow(t, "chunks", fmtShape(meta.chunk_shape));
  infoRow(t, "codecs", (meta.codecs || []).map((c) => c.name).join(", ") || "none");
  infoRow(t, "format", meta.format);
  showSize(path);
  for (const [k, v] of Object.entries(attrs)) {
    if (k !== "units" && k !== "long_name") infoRow(t, k, typeof v === "string" ? v : JSON.stringify(v));
  }
  const rank = meta.shape.length;
  $("picture").hidden = rank < 2;
  $("plot").hidden = true;
  $("dl-slice").value = "";
  if (rank >= 2) {
    await buildSliders(meta);
    await draw();
  } else if (rank === 1) {
    await plotSeries(path, stridedAll(meta.shape[0]), "/" + path);
  }
}
function dimName(meta, d) { return (meta.dimension_names || [])[d] || "dim_" + d; }
// the decoded values of the coordinate array of dimension d (a 1-D array of its name and length
// in the array's group), or null
async function coordinate(meta, d) {
  const name = (meta.dimension_names || [])[d];
  if (!name) return null;
  const group = parentOf(clean(meta.path));
  const path = group ? group + "/" + name : name;
  const c = node(path);
  if (!c || c.node_type !== "array" || c.shape.length !== 1 || c.shape[0] !== meta.shape[d]) return null;
  if (c.shape[0] > 100000) return null;
  if (!(path in state.coords)) {
    const doc = await getJson(arrayUrl(path, "values.json"));
    const col = doc.columns[doc.columns.length - 1];
    state.coords[path] = { values: col.values, units: (c.attributes || {}).units };
  }
  return state.coords[path];
}
function label(coord, i) {
  if (!coord) return String(i);
  const v = coord.values[i];
  return (typeof v === "number" ? fmtNum(v) : String(v)) + (coord.units && typeof v === "number" ? " " + coord.units : "");
}
async function buildSliders(meta) {
  const box = $("sliders");
  box.textContent = "";
  state.lead = [];
  for (let d = 0; d < meta.shape.length - 2; d++) {
    const coord = await coordinate(meta, d);
    const div = document.createElement("div");
    div.className = "slider";
    const name = document.createElement("label");
    name.textContent = dimName(meta, d);
    const input = document.createElement("input");
    input.type = "range";
    input.min = 0;
    input.max = meta.shape[d] - 1;
    input.value = 0;
    input.id = "slider-" + d;
    input.dataset.dim = dimName(meta, d);
    const out = document.createElement("output");
    out.id = "slider-label-" + d;
    out.textContent = label(coord, 0);
    input.addEventListener("input", () => { out.textContent = label(coord, Number(input.value)); });
    input.addEventListener("change", () => draw().catch(showError));
    div.append(name, input, out);
    box.appendChild(div);
    state.lead.push(input);
  }
}
function leadIndices() { return state.lead.map((i) => Number(i.value)); }
function pictureSlice() { return leadIndices().concat([":", ":"]).join(", "); }
async function draw() {
  const meta = state.array;
  const params = { slice: pictureSlice(), colormap: $("colormap").value };
  if ($("vmin").value.trim()) params.vmin = $("vmin").value.trim();
  if ($("vmax").value.trim()) params.vmax = $("vmax").value.trim();
  const r = await api(arrayUrl(clean(meta.path), "image.png", params));
  const blob = await r.blob();
  const img = $("image");
  if (img.src.startsWith("blob:")) URL.revokeObjectURL(img.src);
  img.src = URL.createObjectURL(blob);
  const vmin = Number(r.headers.get("X-Zaro-Vmin"));
  const vmax = Number(r.headers.get("X-Zaro-Vmax"));
  const drawn = r.headers.get("X-Zaro-Selection");
  state.drawn = drawn.split(",").map((s) => s.trim()).map((s) => {
    const p = s.split(":").map(Number);
    return p.length === 1 ? { start: p[0], step: 1, fixed: true } : { start: p[0], step: p[2] || 1 };
  });
  img.dataset.selection = drawn;
  img.dataset.vmin = vmin;
  img.dataset.vmax = vmax;
  $("cb-min").textContent = fmtNum(vmin);
  $("cb-max").textContent = fmtNum(vmax);
  $("cb-units").textContent = (meta.attributes || {}).units || "";
  paintColorbar($("colormap").value);
  const kept = state.drawn.filter((x) => !x.fixed);
  $("drawn").textContent = "drawn: [" + drawn + "]" + (kept.some((x) => x.step > 1) ? " (every " + kept.map((x) => x.step).join(" x ") + " element, downsampled)" : "");
  $("dl-slice").value = pictureSlice();
}
function paintColorbar(name) {
  const lut = state.maps[name];
  const ctx = $("colorbar").getContext("2d");
  for (let k = 0; k < 256; k++) {
    ctx.fillStyle = "#" + lut[k];
    ctx.fillRect(k, 0, 1, 14);
  }
}
async function loadColormaps() {
  const text = await (await fetch("/ui/colormaps.txt")).text();
  const sel = $("colormap");
  for (const line of text.split("\n")) {
    if (!line.trim() || line.startsWith("#")) continue;
    const parts = line.trim().split(" ");
    state.maps[parts[0]] = parts.slice(1);
    const o = document.createElement("option");
    o.value = o.textContent = parts[0];
    sel.appendChild(o);
  }
}
function fmtNum(v) {
  if (typeof v !== "number" || !isFinite(v)) return String(v);
  const a = Math.abs(v);
  return a !== 0 && (a >= 1e6 || a < 1e-3) ? v.toExponential(4) : String(Number(v.toPrecision(6)));
}

// the array index under the mouse, from the drawn selection (start + pixel * step)
function indexAt(ev) {
  const img = $("image");
  const rect = img.getBoundingClientRect();
  const px = Math.floor(((ev.clientX - rect.left) / rect.width) * img.naturalWidth);
  const py = Math.floor(((ev.clientY - rect.top) / rect.height) * img.naturalHeight);
  if (px < 0 || py < 0 || px >= img.naturalWidth || py >= img.naturalHeight) return null;
  const kept = state.drawn.filter((x) => !x.fixed);
  const idx = leadIndices();
  idx.push(kept[0].start + py * kept[0].step, kept[1].start + px * kept[1].step);
  return idx;
}
let hoverTimer = null;
let hoverSeq = 0;
$("image").addEventListener("mousemove", (ev) => {
  clearTimeout(hoverTimer);
  hoverTimer = setTimeout(() => hover(ev).catch(showError), 60);
});
async function hover(ev) {
  const idx = indexAt(ev);
  if (!idx) return;
  const seq = ++hoverSeq;
  const meta = state.array;
  const doc = await getJson(arrayUrl(clean(meta.path), "values.json", { slice: idx.join(", ") }));
  if (seq !== hoverSeq) return;
  const value = doc.columns[doc.columns.length - 1].values[0];
  const parts = [];
  for (let d = 0; d < idx.length; d++) parts.push(dimName(meta, d) + "=" + label(await coordinate(meta, d), idx[d]));
  const units = (meta.attributes || {}).units;
  const h = $("hover");
  h.dataset.index = idx.join(",");
  h.dataset.value = value === null ? "" : String(value);
  h.textContent = parts.join("  ") + "  →  " + (value === null ? "missing" : (typeof value === "number" ? fmtNum(value) : value) + (units ? " " + units : ""));
}
// a click: the series of that pixel along the first dimension
$("image").addEventListener("click", (ev) => {
  const idx = indexAt(ev);
  const meta = state.array;
  if (!idx || meta.shape.length < 3) return;
  const n = meta.shape[0];
  const sel = [stridedAll(n)].concat(idx.slice(1)).join(", ");
  plotSeries(clean(meta.path), sel, dimName(meta, 0) + " series at " + idx.slice(1).join(", ")).catch(showError);
});
function stridedAll(n) { const k = Math.ceil(n / 2000); return k > 1 ? "::" + k : ":"; }

// ---- line plots (SVG) ----------------------------------------------------------------------
async function plotSeries(path, slice, title) {
  const doc = await getJson(arrayUrl(path, "values.json", { slice }));
  const x = doc.columns[0];
  const y = doc.columns[doc.columns.length - 1];
  $("plot").hidden = false;
  $("plot-title").textContent = title + (y.name ? " (" + y.name + ")" : "");
  linePlot($("line"), doc.columns.length > 1 ? x.values : y.values.map((_, i) => i), y.values, false);
}
const SVG = "http://www.w3.org/2000/svg";
function svgEl(parent, tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  parent.appendChild(e);
  return e;
}
function linePlot(svg, xs, ys, bars) {
  svg.textContent = "";
  const W = Number(svg.getAttribute("width"));
  const H = Number(svg.getAttribute("height"));
  const m = 40;
  const xnum = xs.map((v, i) => (typeof v === "number" ? v : typeof v === "string" && !isNaN(Date.parse(v)) ? Date.parse(v) : i));
  const pts = xnum.map((x, i) => [x, ys[i]]).filter((p) => typeof p[1] === "number");
  if (!pts.length) { svgEl(svg, "text", { x: m, y: H / 2, class: "axis" }).textContent = "no values"; return; }
  const x0 = Math.min(...pts.map((p) => p[0])), x1 = Math.max(...pts.map((p) => p[0]));
  let y0 = Math.min(...pts.map((p) => p[1])), y1 = Math.max(...pts.map((p) => p[1]));
  if (bars) { y0 = Math.min(0, y0); y1 = Math.max(0, y1); }
  const sx = (x) => m + (x1 === x0 ? 0.5 : (x - x0) / (x1 - x0)) * (W - 2 * m);
  const sy = (y) => H - m + (y1 === y0 ? -0.5 : -(y - y0) / (y1 - y0)) * (H - 2 * m);
  svgEl(svg, "line", { x1: m, y1: H - m, x2: W - m, y2: H - m, stroke: "#999" });
  svgEl(svg, "line", { x1: m, y1: m, x2: m, y2: H - m, stroke: "#999" });
  svgEl(svg, "text", { x: 2, y: m, class: "axis" }).textContent = fmtNum(y1);
  svgEl(svg, "text", { x: 2, y: H - m, class: "axis" }).textContent = fmtNum(y0);
  svgEl(svg, "text", { x: m, y: H - m + 14, class: "axis" }).textContent = String(xs[0]);
  svgEl(svg, "text", { x: W - m - 60, y: H - m + 14, class: "axis" }).textContent = String(xs[xs.length - 1]);
  if (bars) {
    const w = Math.max(1, (W - 2 * m) / pts.length - 2);
    pts.forEach((p, i) => {
      const x = m + (i / pts.length) * (W - 2 * m);
      const top = Math.min(sy(p[1]), sy(0));
      svgEl(svg, "rect", { x, y: top, width: w, height: Math.abs(sy(p[1]) - sy(0)), fill: "#3b6ea5" });
    });
  } else {
    svgEl(svg, "polyline", { points: pts.map((p) => sx(p[0]).toFixed(1) + "," + sy(p[1]).toFixed(1)).join(" "), fill: "none", stroke: "#3b6ea5", "stroke-width": 1.5 });
  }
}

// ---- downloads -----------------------------------------------------------------------------
async function download(kind) {
  const meta = state.array;
  const slice = $("dl-slice").value.trim();
  const params = kind === "arrow" ? { layout: "table" } : {};
  if (slice) params.slice = slice;
  const url = arrayUrl(clean(meta.path), kind === "arrow" ? "" : "values." + kind, params);
  const blob = await (await api(url)).blob();
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = (clean(meta.path).replace(/\//g, "_") || "array") + (kind === "arrow" ? ".arrows" : "." + kind);
  document.body.appendChild(a);
  a.click();
  setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
}
$("dl-arrow").addEventListener("click", () => download("arrow").catch(showError));
$("dl-csv").addEventListener("click", () => download("csv").catch(showError));
$("dl-parquet").addEventListener("click", () => download("parquet").catch(showError));
$("redraw").addEventListener("click", () => draw().catch(showError));
$("colormap").addEventListener("change", () => draw().catch(showError));

// ---- SQL -----------------------------------------------------------------------------------
$("show-sql").addEventListener("click", () => {
  $("array").hidden = true;
  $("welcome").hidden = true;
  $("sql").hidden = false;
  $("sql-text").focus();
});
$("sql-run").addEventListener("click", () => runSql().catch(showError));
async function runSql() {
  clearError();
  $("sql-error").hidden = true;
  $("sql-result").textContent = "";
  $("sql-chart").hidden = true;
  let doc;
  try {
    doc = await getJson("/sql?" + new URLSearchParams({ q: $("sql-text").value }));
  } catch (e) {
    $("sql-error").hidden = false;
    $("sql-error").textContent = e.message;
    return;
  }
  $("sql-time").textContent = "Run Time (s): real " + doc.seconds.toFixed(3) + "  " + JSON.stringify(doc.stats || {}) + (doc.truncated ? "  (first " + doc.rows.length + " rows)" : "");
  const t = document.createElement("table");
  t.className = "result";
  const head = t.createTHead().insertRow();
  doc.columns.forEach((c) => {
    const th = document.createElement("th");
    th.append(c.name, document.createElement("br"));
    const s = document.createElement("small");
    s.textContent = c.type;
    th.appendChild(s);
    head.appendChild(th);
  });
  const body = t.createTBody();
  doc.rows.forEach((row) => {
    const tr = body.insertRow();
    row.forEach((v) => { tr.insertCell().textContent = v === null ? "NULL" : typeof v === "number" ? fmtNum(v) : String(v); });
  });
  $("sql-result").appendChild(t);
  if (doc.columns.length >= 2 && doc.rows.length > 1 && doc.rows.every((r) => typeof r[1] === "number" || r[1] === null)) {
    const svg = $("sql-chart");
    svg.hidden = false;
    const numericX = doc.rows.every((r) => typeof r[0] === "number" || (typeof r[0] === "string" && !isNaN(Date.parse(r[0]))));
    linePlot(svg, doc.rows.map((r) => r[0]), doc.rows.map((r) => r[1]), !numericX);
  }
}

// ---- start ---------------------------------------------------------------------------------
(async () => {
  try {
    await loadColormaps();
    await loadTree();
    try {
      const r = await api("/sql");
      $("show-sql").hidden = !r.ok;
    } catch (_) { /* no --sql */ }
    document.body.dataset.ready = "true";
  } catch (e) {
    showError(e);
  }
})();
