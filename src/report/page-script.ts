// The script report.html runs after uPlot's: it reads the charts' data from the page's JSON block
// (<script type="application/json" id="report-data">, built by plot-data.ts) and draws each chart
// with uPlot: lines and points against step, the event and NaN marks, and the phase bars (drawn
// in a hook, as uPlot has no stacked bars). Hovering shows every series' value at that step in
// the legend under the chart, dragging across a chart zooms into those steps, a double-click zooms
// back out; the charts share one cursor. Plain ES2017 in a string (it runs in the browser, not
// in Node); its number formats are format.ts's own functions, written into it as their source
// text (PAGE_FORMATS). test/unit/report-page-script-*.test.ts runs it in node:vm against
// stand-ins for the DOM and uPlot.
import { PAGE_FORMATS } from './format.ts';

export const PAGE_SCRIPT = String.raw`(function () {
  'use strict';
  var block = document.getElementById('report-data');
  if (!block || typeof uPlot !== 'function') return;
  var data = JSON.parse(block.textContent);
  var steps = data.steps;
  var pr = uPlot.pxRatio || 1;

  ${PAGE_FORMATS}
  var FORMATS = {
    loss: fmtLoss,
    pct: function (v) { return fmtPct(v, 2); },
    int: fmtInt,
    sig3: function (v) { return fmtSig(v, 3); },
    sig4: function (v) { return fmtSig(v, 4); }
  };
  function shown(fmt) { return function (u, v) { return v == null ? '\u2013' : fmt(v); }; }

  /** The series' own steps merged into one ascending x; a step a series lacks is undefined (spanned), a NaN is null (a gap). */
  function align(series) {
    var seen = new Set();
    var x = [];
    series.forEach(function (s) {
      steps[s.x].forEach(function (v) { if (!seen.has(v)) { seen.add(v); x.push(v); } });
    });
    x.sort(function (a, b) { return a - b; });
    var at = new Map();
    x.forEach(function (v, i) { at.set(v, i); });
    var cols = series.map(function (s) {
      var col = new Array(x.length).fill(undefined);
      var xs = steps[s.x];
      for (var j = 0; j < xs.length; j++) col[at.get(xs[j])] = s.y[j];
      return col;
    });
    return { at: at, table: [x].concat(cols) };
  }

  /** Values with no value either side in their own series: a line cannot show them, a dot does. */
  function loneIndexes(s, at) {
    var out = [];
    var y = s.y;
    for (var j = 0; j < y.length; j++) {
      if (y[j] !== null && (j === 0 || y[j - 1] === null) && (j === y.length - 1 || y[j + 1] === null)) out.push(at.get(steps[s.x][j]));
    }
    return out;
  }

  /** The whole run (0 to its last step) until a drag zooms in; a double-click comes back here. */
  function xRange(xMax) {
    return function (u, lo, hi) {
      var x = u.data[0];
      if (lo == null || (x.length && lo <= x[0] && hi >= x[x.length - 1])) return [0, Math.max(xMax, hi || 0)];
      return [lo, hi];
    };
  }

  function yAxisSize(u, values, axisIdx, cycleNum) {
    var axis = u.axes[axisIdx];
    if (cycleNum > 1) return axis._size;
    var w = 0;
    if (values) {
      u.ctx.font = axis.font[0];
      values.forEach(function (v) { w = Math.max(w, u.ctx.measureText(v).width / pr); });
    }
    return Math.ceil(w) + 40;
  }

  /** Tick spacings of 1, 2 or 5 times a power of ten (uPlot's own add 2.5, which fmtTick would round to one decimal). */
  var INCRS = [];
  for (var e = -12; e <= 12; e++) [1, 2, 5].forEach(function (m) { INCRS.push(Number((m * Math.pow(10, e)).toPrecision(3))); });
  var STEP_INCRS = INCRS.filter(function (v) { return v >= 1; });

  function axes(yLabel, yValues) {
    return [
      { label: 'step', incrs: STEP_INCRS, values: function (u, splits, i, space, incr) { return splits.map(function (v) { return fmtTick(v, incr); }); } },
      { label: yLabel, incrs: INCRS, values: yValues, size: yAxisSize }
    ];
  }

  /** The dashed vertical lines of events and NaN/Inf steps, behind nothing (drawn last, thin). */
  function drawMarks(marks) {
    return function (u) {
      if (!marks.length) return;
      var ctx = u.ctx;
      var b = u.bbox;
      ctx.save();
      ctx.lineWidth = 1.5 * pr;
      ctx.setLineDash([3 * pr, 2 * pr]);
      ctx.globalAlpha = 0.85;
      marks.forEach(function (m) {
        var x = Math.round(u.valToPos(m.x, 'x', true));
        if (x < b.left || x > b.left + b.width) return;
        ctx.strokeStyle = m.color;
        ctx.beginPath();
        ctx.moveTo(x, b.top);
        ctx.lineTo(x, b.top + b.height);
        ctx.stroke();
      });
      ctx.restore();
    };
  }

  /** Under the chart: what the marks within 4 px of the cursor are (an event's message, the NaN's series). */
  function markTip(marks, tip) {
    return function (u) {
      var left = u.cursor.left;
      if (!tip || left == null || left < 0) { if (tip) tip.textContent = ''; return; }
      var near = marks.filter(function (m) { return Math.abs(u.valToPos(m.x, 'x') - left) <= 4; });
      tip.textContent = near.map(function (m) { return m.label; }).join('; ');
    };
  }

  function lineOptions(c, size, tip) {
    var al = align(c.series);
    var series = [{ label: 'step', value: shown(fmtInt) }];
    c.series.forEach(function (s) {
      var finite = s.y.filter(function (v) { return v !== null; }).length;
      var o = {
        label: s.name,
        stroke: s.color,
        width: s.width,
        spanGaps: false,
        value: shown(FORMATS[s.format] || FORMATS.sig4)
      };
      if (s.opacity !== undefined) o.alpha = s.opacity;
      if (s.dash) o.dash = s.dash;
      if (s.style === 'points') {
        o.paths = function () { return null; };
        o.points = { show: true, size: 9, width: 1.5, stroke: '#fff', fill: s.color };
      } else if (finite <= 30) {
        o.points = { show: true, size: 7, width: 1, stroke: '#fff', fill: s.color };
      } else {
        o.points = { show: false, filter: loneIndexes(s, al.at), size: 9, width: 1, stroke: '#fff', fill: s.color };
      }
      series.push(o);
    });
    var y = c.log
      ? { distr: 3, log: 10 }
      : {
          range: {
            min: { pad: 0.04, soft: c.includeZero ? 0 : null, mode: c.includeZero ? 1 : 0, hard: c.clamp ? c.clamp[0] : null },
            max: { pad: 0.04, soft: c.includeZero ? 0 : null, mode: c.includeZero ? 1 : 0, hard: c.clamp ? c.clamp[1] : null }
          }
        };
    var yValues = function (u, splits, i, space, incr) {
      return splits.map(function (v) {
        if (v == null) return '';
        if (c.percent) return fmtPct(v, decimalsFor(incr * 100));
        return c.log ? (Math.abs(v) >= 1e4 ? fmtTick(v, v) : fmtSig(v, 2)) : fmtTick(v, incr);
      });
    };
    return {
      opts: {
        width: size.width,
        height: size.height,
        cursor: { sync: { key: 'mgpu-steps' }, drag: { x: true, y: false, setScale: true } },
        scales: { x: { time: false, range: xRange(c.xMax) }, y: y },
        axes: axes(c.yLabel, yValues),
        series: series,
        hooks: { draw: [drawMarks(c.marks)], setCursor: [markTip(c.marks, tip)] }
      },
      table: al.table
    };
  }

  function spanText(span) { return span[1] - span[0] > 1 ? 'steps ' + (span[0] + 1) + '-' + span[1] : 'step ' + span[1]; }

  /** Where each bar is, in canvas pixels: its span, at most 48 px wide, ending at its line's step. */
  function barBox(u, span) {
    var x1 = u.valToPos(span[1], 'x', true);
    var x0 = Math.max(u.valToPos(span[0], 'x', true), x1 - 48 * pr);
    return { x0: x0, x1: x1 };
  }

  function drawBars(c) {
    return function (u) {
      var ctx = u.ctx;
      var b = u.bbox;
      ctx.save();
      ctx.beginPath();
      ctx.rect(b.left, b.top, b.width, b.height);
      ctx.clip();
      var centres = [];
      c.spans.forEach(function (span, i) {
        var box = barBox(u, span);
        centres.push((box.x0 + box.x1) / 2);
        if (c.layers.some(function (l) { return l.values[i] === null; })) return;
        var gap = box.x1 - box.x0 >= 6 * pr ? pr : 0;
        var acc = 0;
        c.layers.forEach(function (l, k) {
          var v = Math.max(0, l.values[i]);
          if (!u.series[k + 1].show) return;
          var ya = u.valToPos(acc, 'y', true);
          var yb = u.valToPos(acc + v, 'y', true);
          acc += v;
          if (ya - yb < 0.05) return;
          ctx.fillStyle = l.color;
          ctx.fillRect(box.x0 + gap / 2, yb, Math.max(0.5 * pr, box.x1 - box.x0 - gap), ya - yb);
        });
        if (c.cappedAt !== null && acc > c.cappedAt) {
          var mid = (box.x0 + box.x1) / 2;
          ctx.fillStyle = '#111827';
          ctx.beginPath();
          ctx.moveTo(mid - 4 * pr, b.top + 7 * pr);
          ctx.lineTo(mid, b.top + pr);
          ctx.lineTo(mid + 4 * pr, b.top + 7 * pr);
          ctx.fill();
        }
      });
      var o = c.overlay;
      if (o && u.series[c.layers.length + 1].show) {
        var pts = [];
        o.values.forEach(function (v, i) { if (v !== null) pts.push([centres[i], u.valToPos(v, 'y', true)]); });
        ctx.strokeStyle = o.color;
        ctx.fillStyle = o.color;
        ctx.lineWidth = o.width * pr;
        if (pts.length === 1) {
          ctx.beginPath();
          ctx.arc(pts[0][0], pts[0][1], 3 * pr, 0, 2 * Math.PI);
          ctx.fill();
        } else if (pts.length > 1) {
          ctx.setLineDash(o.dash.map(function (d) { return d * pr; }));
          ctx.beginPath();
          pts.forEach(function (p, i) { if (i) ctx.lineTo(p[0], p[1]); else ctx.moveTo(p[0], p[1]); });
          ctx.stroke();
        }
      }
      ctx.restore();
    };
  }

  function barOptions(c, size) {
    var none = function () { return null; };
    var ms = function (u, v) { return v == null ? '\u2013' : fmtSig(v, 3) + ' ms'; };
    var series = [{ label: 'bar', value: function (u, v, si, i) { return i == null ? '\u2013' : spanText(c.spans[i]); } }];
    c.layers.forEach(function (l) { series.push({ label: l.name, stroke: l.color, fill: l.color, paths: none, points: { show: false }, value: ms }); });
    if (c.overlay) series.push({ label: c.overlay.name, stroke: c.overlay.color, dash: c.overlay.dash, width: c.overlay.width, paths: none, points: { show: false }, value: ms });
    var table = [c.spans.map(function (s) { return s[1]; })].concat(c.layers.map(function (l) { return l.values; }));
    if (c.overlay) table.push(c.overlay.values);
    return {
      opts: {
        width: size.width,
        height: size.height,
        cursor: { sync: { key: 'mgpu-steps' }, drag: { x: true, y: false, setScale: true } },
        scales: { x: { time: false, range: xRange(c.xMax) }, y: { auto: false, range: [0, c.yMax] } },
        axes: axes(c.yLabel, function (u, splits, i, space, incr) { return splits.map(function (v) { return fmtTick(v, incr); }); }),
        series: series,
        hooks: { draw: [drawBars(c)] }
      },
      table: table
    };
  }

  function sizeOf(el) { return { width: Math.max(240, el.clientWidth), height: Number(el.getAttribute('data-height')) || 280 }; }

  var plots = [];
  data.charts.forEach(function (c) {
    var el = document.querySelector('#chart-' + c.id + ' .plot');
    if (!el || c.plot.empty) return;
    var tip = document.querySelector('#chart-' + c.id + ' .mark-tip');
    var built = c.plot.kind === 'bars' ? barOptions(c.plot, sizeOf(el)) : lineOptions(c.plot, sizeOf(el), tip);
    plots.push({ el: el, u: new uPlot(built.opts, built.table, el) });
  });
  var pending = false;
  window.addEventListener('resize', function () {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () {
      pending = false;
      plots.forEach(function (p) { p.u.setSize(sizeOf(p.el)); });
    });
  });
  window.mgpuReport = { plots: plots, formats: FORMATS, fmtTick: fmtTick, align: align, barBox: barBox };
})();
`;
