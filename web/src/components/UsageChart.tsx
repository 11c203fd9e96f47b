// A flag's hourly evaluations drawn with uPlot (small, canvas-based): bars stacked by variant, or a bare
// sparkline of the total. The numbers themselves are given in text beside each chart (its legend or
// label), so the canvas is decoration for assistive technology. uPlot is loaded with the first chart shown,
// in a chunk of its own, so pages without charts do not wait for it.
import { useEffect, useMemo, useRef } from 'react'
import type uPlot from 'uplot'
import type { UsageSeries } from '../usage-series'
import { variantLabel } from '../usage-series'

const PALETTE = ['#4f46e5', '#16a34a', '#d97706', '#dc2626', '#0891b2', '#9333ea', '#64748b', '#db2777']
/** The colour of the `i`-th variant (busiest first), in the chart and its legend alike. */
export const variantColor = (i: number): string => PALETTE[i % PALETTE.length]

const compact = new Intl.NumberFormat('en', { notation: 'compact' })
/** Counts are whole numbers: no fractional ticks, and a flat zero line still has a visible scale. */
const countRange: uPlot.Scale.Range = (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))]

let loading: Promise<typeof uPlot> | undefined
const loadUPlot = () => (loading ??= Promise.all([import('uplot'), import('uplot/dist/uPlot.min.css')]).then(([m]) => m.default))

/** Creates the plot in the returned element's box, follows its width, and destroys it on unmount. */
export function usePlot(makeOptions: (width: number, u: typeof uPlot) => uPlot.Options, data: uPlot.AlignedData) {
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const el = box.current
    if (!el) return
    let plot: uPlot | undefined
    let gone = false
    const resize = new ResizeObserver(() => {
      if (plot && el.clientWidth && el.clientWidth !== plot.width) plot.setSize({ width: el.clientWidth, height: plot.height })
    })
    void loadUPlot().then((UPlot) => {
      if (gone) return
      plot = new UPlot(makeOptions(el.clientWidth || 300, UPlot), data, el)
      resize.observe(el)
    })
    return () => {
      gone = true
      resize.disconnect()
      plot?.destroy()
    }
    // (makeOptions reads only the series `data` is built from, and fixed sizes)
  }, [data])
  return box
}

const hourFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' })

/** Evaluations per hour as bars stacked by variant (the busiest at the bottom). Each series is drawn as the
 *  running total up to its variant, the larger ones first, so each variant's part of a bar stays visible;
 *  the hover readout (uPlot's legend, shown over the plot) gives each variant's own count for that hour. */
export function UsageChart({ series, height = 200 }: { series: UsageSeries; height?: number }) {
  const data = useMemo(() => {
    const running = series.variants.map((_, k) =>
      series.hours.map((_, i) => series.variants.slice(0, k + 1).reduce((n, v) => n + v.counts[i], 0)),
    )
    return [series.hours, ...running.reverse()] as uPlot.AlignedData
  }, [series])
  const box = usePlot((width, UPlot) => {
    const last = series.hours[series.hours.length - 1] ?? 0
    const bars = UPlot.paths.bars!({ align: 1, size: [0.9, 40] })
    const drawn = [...series.variants.keys()].reverse()
    return {
      width,
      height,
      legend: { live: true },
      cursor: { y: false, points: { show: false }, drag: { x: false, y: false } },
      scales: { x: { range: [series.hours[0] ?? 0, last + 3600] }, y: { range: countRange } },
      axes: [
        { stroke: '#5f6679', grid: { stroke: '#eef0f5' } },
        { stroke: '#5f6679', grid: { stroke: '#eef0f5' }, size: 48, values: (_u, ticks) => ticks.map((t) => compact.format(t)) },
      ],
      series: [
        { label: 'Hour', value: (_u, v) => (v == null ? '' : hourFormat.format(v * 1000)) },
        ...drawn.map((k) => ({
          label: variantLabel(series.variants[k].variant),
          fill: variantColor(k),
          stroke: variantColor(k),
          width: 0,
          paths: bars,
          points: { show: false },
          value: (_u: uPlot, _v: number | null, _s: number, i: number | null) => (i == null ? '' : String(series.variants[k].counts[i])),
        })),
      ],
    }
  }, data)
  return <div ref={box} className="usage-chart" aria-hidden="true" />
}

/** All variants together, without axes: for a row of a list. */
export function Sparkline({ series, width = 80, height = 24 }: { series: UsageSeries; width?: number; height?: number }) {
  const data = useMemo(() => [series.hours, series.totals] as uPlot.AlignedData, [series])
  const box = usePlot(
    () => ({
      width,
      height,
      padding: [3, 1, 1, 1],
      legend: { show: false },
      cursor: { show: false },
      select: { show: false, left: 0, top: 0, width: 0, height: 0 },
      scales: { x: { time: false }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      axes: [{ show: false }, { show: false }],
      series: [{}, { stroke: '#4f46e5', fill: 'rgba(79, 70, 229, 0.15)', width: 1.5, points: { show: false } }],
    }),
    data,
  )
  return <div ref={box} className="sparkline" aria-hidden="true" />
}
