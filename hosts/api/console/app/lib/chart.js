// Charts through uPlot (a library, never drawn by hand), loaded on first use so that screens without a chart do not
// pay for it. A chart is a <figure> with a caption and, for screen readers and keyboards, the same numbers as a table.
import { html, useEffect, useRef } from './html.js';

/**
 * <BarChart caption days series /> : days = [Date, …] (x axis, local days); series = [{ label, values: [number, …],
 * format(v) }]. Values are numbers for drawing only (units already converted); the table below shows the formatted text.
 */
export function BarChart({ caption, days, series, height = 220, dayLabel = (d) => d.toLocaleDateString(), tableLabel = 'Show as a table' }) {
  const box = useRef(null);
  useEffect(() => {
    let plot = null;
    let observer = null;
    let cancelled = false;
    import('uplot').then(({ default: uPlot }) => {
      if (cancelled || box.current === null) return;
      const colors = ['#0b57d0', '#146c2e', '#7a4f00', '#b3261e'];
      const bars = uPlot.paths.bars({ size: [0.6, 40] });
      const opts = {
        width: Math.max(box.current.clientWidth, 280), height,
        legend: { show: series.length > 1 },
        cursor: { show: false },
        // Half a day of room at both ends, so that the first and last bars are whole.
        scales: { x: { time: true, range: (u, min, max) => [min - 43_200, max + 43_200] } },
        axes: [{ stroke: '#545d68' }, { stroke: '#545d68' }],
        series: [{}, ...series.map((s, i) => ({ label: s.label, stroke: colors[i % colors.length], fill: `${colors[i % colors.length]}55`, paths: bars, points: { show: false } }))],
      };
      const data = [days.map((d) => Math.floor(d.getTime() / 1000)), ...series.map((s) => s.values)];
      plot = new uPlot(opts, data, box.current);
      observer = new ResizeObserver(() => { if (box.current) plot.setSize({ width: Math.max(box.current.clientWidth, 280), height }); });
      observer.observe(box.current);
    });
    return () => {
      cancelled = true;
      observer?.disconnect();
      plot?.destroy();
    };
  }, [JSON.stringify(series.map((s) => s.values)), days.length, height]);
  return html`<figure class="chart">
    <figcaption>${caption}</figcaption>
    <div ref=${box} aria-hidden="true"></div>
    <details>
      <summary>${tableLabel}</summary>
      <div class="table-wrap" tabindex="0" role="region" aria-label=${caption}>
        <table>
          <thead><tr><th scope="col">—</th>${series.map((s) => html`<th scope="col" class="num">${s.label}</th>`)}</tr></thead>
          <tbody>${days.map((d, i) => html`<tr><th scope="row">${dayLabel(d)}</th>${series.map((s) => html`<td class="num">${s.format ? s.format(s.values[i], i) : s.values[i]}</td>`)}</tr>`)}</tbody>
        </table>
      </div>
    </details>
  </figure>`;
}
