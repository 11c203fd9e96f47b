// Cumulative units per variant over the phase, drawn with uPlot: the lines should rise together in the
// split's proportions; a gap that opens is what the SRM check measures. The numbers are in the legend below.
import { useMemo } from 'react'
import type uPlot from 'uplot'
import type { UnitsTimeline } from '../../experiments-api'
import { usePlot, variantColor } from '../../components/UsageChart'

const dayFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: 'numeric' })

export function UnitsChart({ timeline, height = 220 }: { timeline: UnitsTimeline; height?: number }) {
  const variants = Object.keys(timeline.units)
  const data = useMemo(
    () => [timeline.at.map((t) => Date.parse(t) / 1000), ...variants.map((v) => timeline.units[v]!)] as uPlot.AlignedData,
    [timeline],
  )
  const box = usePlot(
    (width) => ({
      width,
      height,
      legend: { live: true },
      cursor: { y: false, drag: { x: false, y: false } },
      scales: { y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.05))] } },
      axes: [
        { stroke: '#5f6679', grid: { stroke: '#eef0f5' } },
        { stroke: '#5f6679', grid: { stroke: '#eef0f5' }, size: 56 },
      ],
      series: [
        { label: 'Time', value: (_u, v) => (v == null ? '' : dayFormat.format(v * 1000)) },
        ...variants.map((v, i) => ({ label: v, stroke: variantColor(i), width: 2, points: { show: timeline.at.length < 40 } })),
      ],
    }),
    data,
  )
  return (
    <figure className="units-chart">
      <div ref={box} aria-hidden="true" />
      <figcaption>
        <ul className="chart-legend" aria-label="Units by variant">
          {variants.map((v, i) => (
            <li key={v}>
              <span className="legend-swatch" style={{ background: variantColor(i) }} aria-hidden="true" />{' '}
              <span className="mono">{v}</span>: {(timeline.units[v]!.at(-1) ?? 0).toLocaleString('en')} units
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  )
}
