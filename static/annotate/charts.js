/* Charts and table downloads on the report and job pages.
 *
 * Every <figure data-chart> holds a chart spec of scoring/charts.py in a
 * <script type="application/json"> (json_script): this file draws it on the
 * figure's <canvas> with the vendored Chart.js (plus chartjs-chart-matrix for
 * heatmaps and chartjs-chart-boxplot for box plots) and wires its PNG and CSV
 * buttons. Every <table data-export="name"> (a paper's table) gets CSV and
 * LaTeX (tabular) downloads. No eval, no inline style: works under the CSP.
 * Report fragments replaced by htmx are drawn again after each swap, and an
 * open "Data" table stays open.
 */
(function () {
  "use strict";
  var INK = "#1d2330", GRID = "#d9dee7", NONE = "#bdbdbd";

  // -- CSV and LaTeX (the one place in the browser that writes them) ------------
  var FORMULA = /^[=+\-@\t\r]/;
  function csvCell(value) {
    if (value === null || value === undefined) return "";
    if (typeof value === "number") return isFinite(value) ? String(value) : "";
    var text = String(value);
    if (FORMULA.test(text)) text = "'" + text; // a spreadsheet would run it as a formula
    return /[",\n\r]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
  }
  function toCSV(header, rows) {
    return [header].concat(rows).map(function (row) { return row.map(csvCell).join(","); }).join("\n") + "\n";
  }
  var LATEX = { "&": "\\&", "%": "\\%", "$": "\\$", "#": "\\#", "_": "\\_", "{": "\\{", "}": "\\}",
    "~": "\\textasciitilde{}", "^": "\\textasciicircum{}", "\\": "\\textbackslash{}" };
  // pdflatex (without inputenc's utf8 extras) refuses most characters outside ASCII: the
  // ones these tables use become commands; accented letters get their accent command;
  // anything else is written as its code point, so the table still compiles.
  var LATEX_SYMBOLS = {
    "τ": "$\\tau$", "κ": "$\\kappa$", "α": "$\\alpha$", "β": "$\\beta$", "ρ": "$\\rho$", "σ": "$\\sigma$",
    "μ": "$\\mu$", "χ": "$\\chi$", "π": "$\\pi$", "δ": "$\\delta$", "Δ": "$\\Delta$", "ε": "$\\varepsilon$",
    "·": "$\\cdot$", "×": "$\\times$", "±": "$\\pm$", "−": "$-$", "≤": "$\\leq$", "≥": "$\\geq$",
    "≠": "$\\neq$", "≈": "$\\approx$", "∞": "$\\infty$", "√": "$\\surd$", "→": "$\\rightarrow$",
    "←": "$\\leftarrow$", "↑": "$\\uparrow$", "↓": "$\\downarrow$", "✓": "$\\surd$", "°": "$^\\circ$",
    "–": "--", "—": "---", "…": "\\ldots{}", "“": "``", "”": "''", "‘": "`", "’": "'", "«": "``",
    "»": "''", "€": "\\texteuro{}", "£": "\\pounds{}", "§": "\\S{}", "\u00a0": "~",
    "ß": "\\ss{}", "æ": "\\ae{}", "Æ": "\\AE{}", "ø": "\\o{}", "Ø": "\\O{}", "å": "\\aa{}", "Å": "\\AA{}",
    "œ": "\\oe{}", "Œ": "\\OE{}", "ł": "\\l{}", "Ł": "\\L{}", "ı": "\\i{}",
  };
  var LATEX_ACCENTS = { "\u0300": "`", "\u0301": "'", "\u0302": "^", "\u0303": "~", "\u0308": "\"", "\u0304": "=",
    "\u0327": "c", "\u030c": "v", "\u0306": "u", "\u030a": "r", "\u030b": "H", "\u0328": "k" };
  function latexChar(ch) {
    if (LATEX_SYMBOLS[ch]) return LATEX_SYMBOLS[ch];
    var parts = ch.normalize("NFD");
    if (parts.length === 2 && /^[A-Za-z]$/.test(parts[0]) && LATEX_ACCENTS[parts[1]]) {
      return "\\" + LATEX_ACCENTS[parts[1]] + "{" + parts[0] + "}";
    }
    // Parentheses, not brackets: a row opening with "[" would be read as the option of the line break ending the row above.
    return "(U+" + ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0") + ")";
  }
  function latexCell(value) {
    if (value === null || value === undefined) return "";
    return String(value)
      .replace(/[&%$#_{}~^\\]/g, function (ch) { return LATEX[ch]; })
      .replace(/[^\x00-\x7f]/gu, latexChar);
  }
  function toLaTeX(header, rows) {
    var width = Math.max(header.length, rows.reduce(function (m, r) { return Math.max(m, r.length); }, 0));
    var line = function (row) { return "  " + row.map(latexCell).join(" & ") + " \\\\"; };
    return ["\\begin{tabular}{l" + "r".repeat(Math.max(width - 1, 0)) + "}", "  \\hline", line(header), "  \\hline"]
      .concat(rows.map(line), ["  \\hline", "\\end{tabular}"]).join("\n") + "\n";
  }
  function save(name, href) {
    var a = document.createElement("a");
    a.href = href; a.download = name; a.hidden = true;
    document.body.appendChild(a); a.click(); a.remove();
  }
  function saveText(name, text, type) {
    var url = URL.createObjectURL(new Blob([text], { type: type }));
    save(name, url);
    setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
  }
  // Names keep what a title says in Greek (Kendall's τ -> kendall-s-tau) and accented letters' base letters.
  var SPELLED = { "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "θ": "theta", "κ": "kappa",
    "λ": "lambda", "μ": "mu", "π": "pi", "ρ": "rho", "σ": "sigma", "τ": "tau", "φ": "phi", "χ": "chi", "ω": "omega" };
  function slug(text) {
    var spelled = String(text).normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
      .replace(/[^\x00-\x7f]/gu, function (ch) { return SPELLED[ch] ? "-" + SPELLED[ch] + "-" : "-"; });
    return (spelled.replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "chart").slice(0, 60);
  }
  // A download's name: the page's prefix (scoring/filenames.py, data-download-prefix: the
  // campaign, and the job or topic) before the table's or chart's own name.
  function fileName(el, name) {
    var holder = el.closest("[data-download-prefix]");
    return holder ? holder.dataset.downloadPrefix + "-" + name : name;
  }

  // -- tables ------------------------------------------------------------------
  // A table's cells as a grid (colspan and rowspan spread out); header rows are joined per column.
  function grid(rows, repeat) {
    var out = [];
    rows.forEach(function (tr, r) {
      out[r] = out[r] || [];
      var c = 0;
      Array.prototype.forEach.call(tr.cells, function (cell) {
        while (out[r][c] !== undefined) c++;
        var text = cell.textContent.replace(/\s+/g, " ").trim();
        for (var dr = 0; dr < (cell.rowSpan || 1); dr++) {
          out[r + dr] = out[r + dr] || [];
          for (var dc = 0; dc < (cell.colSpan || 1); dc++) out[r + dr][c + dc] = repeat || (dr === 0 && dc === 0) ? text : "";
        }
        c += cell.colSpan || 1;
      });
    });
    return out;
  }
  function readTable(table) {
    var head = table.tHead ? grid(Array.prototype.slice.call(table.tHead.rows), true) : [];
    var header = [];
    head.forEach(function (row) {
      row.forEach(function (text, c) {
        if (text && header[c] !== text) header[c] = header[c] ? header[c] + " " + text : text;
        else header[c] = header[c] || "";
      });
    });
    var body = [];
    Array.prototype.forEach.call(table.tBodies, function (tbody) {
      body = body.concat(grid(Array.prototype.slice.call(tbody.rows), false));
    });
    body = body.map(function (row) {
      return row.map(function (text) {
        var number = text === "" ? NaN : Number(text.replace("\u2212", "-"));
        return text !== "" && isFinite(number) && /^[\u2212\-]?[0-9.]+(e[+\-]?[0-9]+)?$/i.test(text) ? number : (text === "\u2014" ? null : text);
      });
    });
    return { header: header, rows: body };
  }
  function tableDownloads(table) {
    if (table.dataset.exportReady) return;
    table.dataset.exportReady = "1";
    var name = table.dataset.export;
    var p = document.createElement("p");
    p.className = "table-downloads";
    p.appendChild(document.createTextNode("Download this table: "));
    [["csv", "CSV"], ["tex", "LaTeX"]].forEach(function (pair, i) {
      if (i) p.appendChild(document.createTextNode(" · "));
      var b = document.createElement("button");
      b.type = "button"; b.textContent = pair[1]; b.dataset.tableDownload = pair[0];
      b.addEventListener("click", function () {
        var t = readTable(table);
        if (pair[0] === "csv") saveText(fileName(table, name) + ".csv", toCSV(t.header, t.rows), "text/csv;charset=utf-8");
        else saveText(fileName(table, name) + ".tex", toLaTeX(t.header, t.rows), "application/x-tex;charset=utf-8");
      });
      p.appendChild(b);
    });
    var holder = table.closest(".table-scroll, .table-box") || table;
    holder.insertAdjacentElement("afterend", p);
  }

  // -- charts ------------------------------------------------------------------
  function axis(spec, extra) {
    var scale = Object.assign({
      title: { display: true, text: spec.title, color: INK },
      grid: { color: GRID },
      ticks: { color: INK }
    }, extra || {});
    if (spec.categories) { scale.type = "category"; scale.labels = spec.categories; }
    else scale.type = "linear";
    if (spec.integer) scale.ticks.precision = 0;
    if (spec.min !== null && spec.min !== undefined) scale.min = spec.min;
    if (spec.max !== null && spec.max !== undefined) scale.max = spec.max;
    return scale;
  }
  function common(spec) {
    return {
      animation: false, responsive: true, maintainAspectRatio: true,
      color: INK,
      plugins: {
        title: { display: true, text: spec.title, color: INK, font: { size: 14 } },
        legend: { display: true, labels: { color: INK, usePointStyle: true } },
        tooltip: { enabled: true }
      }
    };
  }
  var WHITE = { id: "concordWhite", beforeDraw: function (chart) {
    var ctx = chart.ctx; ctx.save(); ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, chart.width, chart.height); ctx.restore();
  } };

  function lineConfig(spec) {
    var options = common(spec);
    options.aspectRatio = 1.8;
    options.scales = { x: axis(spec.x), y: axis(spec.y) };
    options.interaction = { mode: "nearest", intersect: false };
    return {
      type: "line",
      data: {
        labels: spec.x.categories || undefined,
        datasets: spec.datasets.map(function (d) {
          return {
            label: d.label,
            data: d.points.map(function (p) { return { x: p[0], y: p[1] }; }),
            borderColor: d.color, backgroundColor: d.color, pointStyle: d.pointStyle,
            borderDash: d.dash, pointRadius: 4, pointHoverRadius: 6, borderWidth: 2, spanGaps: false
          };
        })
      },
      options: options
    };
  }

  // Diverging, colour-blind safe (ColorBrewer RdBu): red at -1, near-white at 0, blue at 1.
  var STOPS = [[-1, [178, 24, 43]], [-0.5, [239, 138, 98]], [0, [247, 247, 247]], [0.5, [103, 169, 207]], [1, [33, 102, 172]]];
  function heat(v) {
    if (v === null || v === undefined) return NONE;
    v = Math.max(-1, Math.min(1, v));
    for (var i = 1; i < STOPS.length; i++) {
      if (v <= STOPS[i][0]) {
        var a = STOPS[i - 1], b = STOPS[i], t = (v - a[0]) / (b[0] - a[0]);
        return "rgb(" + [0, 1, 2].map(function (k) { return Math.round(a[1][k] + t * (b[1][k] - a[1][k])); }).join(",") + ")";
      }
    }
    return NONE;
  }
  var colourBar = { id: "concordColourBar", afterDraw: function (chart) {
    var spec = chart.options.plugins.concordColourBar;
    if (!spec || !chart.chartArea) return;
    var ctx = chart.ctx, area = chart.chartArea, x = area.right + 18, w = 14, top = area.top, h = Math.max(area.bottom - area.top - 30, 40);
    var gradient = ctx.createLinearGradient(0, top + h, 0, top);
    STOPS.forEach(function (s) { gradient.addColorStop((s[0] + 1) / 2, heat(s[0])); });
    ctx.save();
    ctx.fillStyle = gradient; ctx.fillRect(x, top, w, h);
    ctx.strokeStyle = INK; ctx.strokeRect(x, top, w, h);
    ctx.fillStyle = INK; ctx.font = "11px sans-serif"; ctx.textBaseline = "middle";
    [1, 0.5, 0, -0.5, -1].forEach(function (v) { ctx.fillText(String(v), x + w + 4, top + (1 - (v + 1) / 2) * h); });
    ctx.fillStyle = NONE; ctx.fillRect(x, top + h + 10, w, 12);
    ctx.fillStyle = INK; ctx.fillText("none", x + w + 4, top + h + 16);
    ctx.save(); ctx.translate(x - 6, top + h / 2); ctx.rotate(-Math.PI / 2); ctx.textAlign = "center";
    ctx.fillText(spec.measure, 0, 0); ctx.restore();
    ctx.restore();
  } };
  var cellValues = { id: "concordCellValues", afterDatasetsDraw: function (chart) {
    var spec = chart.options.plugins.concordCellValues;
    if (!spec || spec.n > 12) return;
    var ctx = chart.ctx, meta = chart.getDatasetMeta(0);
    ctx.save(); ctx.font = "11px sans-serif"; ctx.textAlign = "center"; ctx.textBaseline = "middle";
    meta.data.forEach(function (el, i) {
      var d = chart.data.datasets[0].data[i], v = d.v, c = el.getCenterPoint();
      // a pair on too few shared items: a dash, its reason in the tooltip and the Data table
      if (d.why) { ctx.fillStyle = INK; ctx.fillText("—", c.x, c.y); return; }
      if (v === null || v === undefined) return;
      ctx.fillStyle = Math.abs(v) > 0.6 ? "#fff" : INK;
      ctx.fillText(v.toFixed(2), c.x, c.y);
    });
    ctx.restore();
  } };
  function heatmapConfig(spec) {
    var n = spec.names.length, data = [];
    spec.values.forEach(function (row, i) {
      row.forEach(function (v, j) {
        data.push({ x: spec.names[j], y: spec.names[i], v: v, why: spec.reasons ? spec.reasons[i][j] : null });
      });
    });
    var options = common(spec);
    options.aspectRatio = 1.15;
    options.layout = { padding: { right: 70 } };
    options.plugins.legend = { display: false };
    options.plugins.concordColourBar = { measure: spec.measure };
    options.plugins.concordCellValues = { n: n };
    options.plugins.tooltip = { callbacks: {
      title: function () { return ""; },
      label: function (item) {
        var d = item.raw;
        var shown = d.why ? "— (" + d.why + ")" : d.v === null ? "none (no shared items)" : d.v.toFixed(3);
        return d.y + " vs " + d.x + ": " + spec.measure + " " + shown;
      }
    } };
    var tick = { color: INK, autoSkip: false, font: { size: n > 20 ? 9 : 11 } };
    options.scales = {
      x: axis(spec.x, { offset: true, grid: { display: false }, ticks: Object.assign({ maxRotation: 90, minRotation: 45 }, tick) }),
      y: axis(spec.y, { offset: true, reverse: false, grid: { display: false }, ticks: tick })
    };
    return {
      type: "matrix",
      data: { datasets: [{
        label: spec.measure, data: data,
        backgroundColor: function (c) { return c.raw ? heat(c.raw.v) : NONE; },
        borderColor: "#fff", borderWidth: 1,
        width: function (c) { var a = c.chart.chartArea; return a ? a.width / n - 1 : 0; },
        height: function (c) { var a = c.chart.chartArea; return a ? a.height / n - 1 : 0; }
      }] },
      options: options,
      plugins: [colourBar, cellValues]
    };
  }

  function boxConfig(spec) {
    var labels = spec.x.categories, options = common(spec);
    options.aspectRatio = 2;
    options.scales = { x: axis(spec.x, { ticks: { color: INK, autoSkip: false, maxRotation: 90 } }), y: axis(spec.y) };
    options.plugins.tooltip = { callbacks: { label: function (item) {
      var b = item.raw;
      return b ? item.label + ": median " + b.median + ", quartiles " + b.q1 + "-" + b.q3 + ", 5th-95th percentile " + b.min + "-" + b.max : "";
    } } };
    return {
      type: "boxplot",
      data: { labels: labels, datasets: spec.groups.map(function (g) {
        return {
          label: g.label, backgroundColor: g.color + "99", borderColor: g.color, borderWidth: 1.5,
          outlierRadius: 0, itemRadius: 0, grouped: false,
          data: labels.map(function (label, i) {
            var b = spec.boxes[i];
            return b.group === g.label ? { min: b.min, q1: b.q1, median: b.median, q3: b.q3, max: b.max, mean: b.mean } : null;
          })
        };
      }) },
      options: options
    };
  }

  var BUILD = { line: lineConfig, heatmap: heatmapConfig, box: boxConfig };
  function draw(figure) {
    if (figure.dataset.drawn || !window.Chart) return;
    var script = figure.querySelector('script[type="application/json"]');
    var canvas = figure.querySelector("canvas");
    if (!script || !canvas) return;
    var spec = JSON.parse(script.textContent);
    var config = BUILD[spec.type] && BUILD[spec.type](spec);
    if (!config) return;
    config.plugins = (config.plugins || []).concat([WHITE]);
    var chart = new window.Chart(canvas, config);
    figure.dataset.drawn = "1";
    figure.querySelectorAll("[data-download]").forEach(function (button) {
      button.addEventListener("click", function () {
        var name = fileName(figure, slug(spec.title));
        if (button.dataset.download === "png") save(name + ".png", chart.toBase64Image("image/png", 1));
        else saveText(name + ".csv", toCSV(spec.table.header, spec.table.rows), "text/csv;charset=utf-8");
      });
    });
  }

  function init(root) {
    if (window.Chart && window.Chart.instances) {
      Object.keys(window.Chart.instances).forEach(function (key) {
        var chart = window.Chart.instances[key];
        if (chart && !document.body.contains(chart.canvas)) chart.destroy();
      });
    }
    root.querySelectorAll("figure[data-chart]").forEach(draw);
    root.querySelectorAll("table[data-export]").forEach(tableDownloads);
  }

  // Keep the "Data" tables a reader opened across the report's refreshes.
  var open = [];
  document.addEventListener("htmx:beforeSwap", function (event) {
    open = Array.prototype.map.call(event.detail.target.querySelectorAll("figure[data-chart] details[open]"), function (d) {
      return d.closest("figure").querySelector(".chart-title").textContent;
    });
  });
  document.addEventListener("htmx:afterSettle", function () {
    init(document);
    document.querySelectorAll("figure[data-chart]").forEach(function (figure) {
      if (open.indexOf(figure.querySelector(".chart-title").textContent) >= 0) figure.querySelector("details").open = true;
    });
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", function () { init(document); });
  else init(document);

  window.Concord = window.Concord || {};
  window.Concord.tables = { toCSV: toCSV, toLaTeX: toLaTeX, read: readTable, slug: slug };
})();
