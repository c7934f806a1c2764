//! SVG charts: fails and fixes per round with the injection rounds marked
//! (`chart recurrence`), and knowledge-base hits per entry over time
//! (`chart hits`).
//!
//! Drawn with plotters' SVG backend only (no `ttf` feature): text goes into
//! the SVG as plain `<text font-family="sans-serif">` elements, so drawing
//! needs no font file and the viewer's fonts render it. plotters then only
//! estimates text widths, which is why the layouts below leave generous room
//! and the legends are drawn by hand in their own strip.

use std::collections::BTreeMap;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use thiserror::Error;

use crate::figures::{round_breakdown_in, RoundBreakdown};
use crate::model::{ErrorCase, Round};
use crate::table::CaseTable;
use crate::util::{format_date_days, parse_date_days, parse_utc_seconds};

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ChartError {
    #[error("cannot draw the chart: {0}")]
    Draw(String),
    #[error("entry '{entry}' has an unparseable date '{date}'")]
    InvalidDate { entry: String, date: String },
}

fn draw_err<E: std::fmt::Display>(e: E) -> ChartError {
    ChartError::Draw(e.to_string())
}

const FONT: &str = "sans-serif";
const PERSISTENT: RGBColor = RGBColor(178, 34, 34);
const NEW_FAIL: RGBColor = RGBColor(245, 140, 40);
const FIRST_SEEN: RGBColor = RGBColor(150, 160, 185);
const FIXED: RGBColor = RGBColor(46, 139, 87);
const INJECTION: RGBColor = RGBColor(255, 236, 150);
const INK: RGBColor = RGBColor(40, 40, 40);

/// Colour-blind-friendly palette (Okabe–Ito plus extras) for entry lines.
const PALETTE: [RGBColor; 10] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(120, 120, 120),
    RGBColor(160, 40, 40),
    RGBColor(90, 60, 160),
    RGBColor(40, 110, 40),
];

const WIDTH: u32 = 1000;
const HEIGHT: u32 = 620;
const LEGEND_W: u32 = 300;

/// Axis label for counts: whole numbers only, so ticks never read "2.5 cases".
fn count_label(y: &f64) -> String {
    if (y - y.round()).abs() < 1e-6 {
        format!("{}", y.round() as i64)
    } else {
        String::new()
    }
}

/// Shortens `s` to at most `max` characters with an ellipsis.
fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        let head: String = s.chars().take(max.saturating_sub(1)).collect();
        format!("{head}…")
    }
}

/// Draws a legend (colour swatch + label per row) into `area`.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    rows: &[(RGBColor, String)],
) -> Result<(), ChartError> {
    let title_style = TextStyle::from((FONT, 16).into_font()).color(&INK);
    area.draw(&Text::new(title.to_owned(), (10, 50), title_style)).map_err(draw_err)?;
    let style =
        TextStyle::from((FONT, 14).into_font()).color(&INK).pos(Pos::new(HPos::Left, VPos::Center));
    for (i, (color, label)) in rows.iter().enumerate() {
        let y = 85 + 26 * i as i32;
        area.draw(&Rectangle::new([(10, y - 8), (28, y + 8)], color.filled())).map_err(draw_err)?;
        area.draw(&Rectangle::new([(10, y - 8), (28, y + 8)], INK.stroke_width(1)))
            .map_err(draw_err)?;
        area.draw(&Text::new(clip(label, 34), (36, y), style.clone())).map_err(draw_err)?;
    }
    Ok(())
}

/// Stacked bars of fails per round (persistent / new_fail / first seen), a
/// bar of fixes beside each, the injection rounds shaded, and a legend.
pub fn recurrence_svg(cases: &[ErrorCase], rounds: &[Round]) -> Result<String, ChartError> {
    recurrence_svg_in(&CaseTable::new(cases, rounds))
}

/// [`recurrence_svg`] over a [`CaseTable`].
pub fn recurrence_svg_in(t: &CaseTable) -> Result<String, ChartError> {
    let rows = round_breakdown_in(t);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        let (main, legend) = root.split_horizontally(WIDTH - LEGEND_W);
        let injected: Vec<&RoundBreakdown> =
            rows.iter().filter(|r| !r.injected.is_empty()).collect();
        // One note line per injection round below the plot, capped so 20+
        // rounds still fit.
        let notes_shown = injected.len().min(6);
        let notes_h = if injected.is_empty() {
            0
        } else {
            34 + 20 * (notes_shown as u32 + u32::from(injected.len() > notes_shown))
        };
        let (plot, notes) = main.split_vertically(HEIGHT - notes_h);
        draw_recurrence_plot(&plot, &rows, t.len())?;
        if !injected.is_empty() {
            let style = TextStyle::from((FONT, 14).into_font()).color(&INK);
            notes
                .draw(&Text::new(
                    "Knowledge injected (intervention: patterns)".to_owned(),
                    (70, 6),
                    TextStyle::from((FONT, 15).into_font().style(FontStyle::Bold)).color(&INK),
                ))
                .map_err(draw_err)?;
            for (i, r) in injected.iter().take(notes_shown).enumerate() {
                let line = format!(
                    "{}  {}: {}",
                    r.round,
                    r.intervention.as_deref().unwrap_or("intervention"),
                    r.injected.join(", ")
                );
                notes
                    .draw(&Text::new(clip(&line, 95), (70, 30 + 20 * i as i32), style.clone()))
                    .map_err(draw_err)?;
            }
            if injected.len() > notes_shown {
                let more = format!("… and {} more rounds", injected.len() - notes_shown);
                notes
                    .draw(&Text::new(more, (70, 30 + 20 * notes_shown as i32), style))
                    .map_err(draw_err)?;
            }
        }
        draw_legend(
            &legend,
            "Legend",
            &[
                (PERSISTENT, "persistent (fail → fail)".into()),
                (NEW_FAIL, "new_fail (pass → fail)".into()),
                (FIRST_SEEN, "first seen (not in previous round)".into()),
                (FIXED, "new_fix (fail → pass)".into()),
                (INJECTION, "injection round".into()),
            ],
        )?;
        root.present().map_err(draw_err)?;
    }
    Ok(svg)
}

fn draw_recurrence_plot<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    rows: &[RoundBreakdown],
    n_cases: usize,
) -> Result<(), ChartError> {
    let n = rows.len().max(1);
    let y_top = rows.iter().map(|r| r.fails.max(r.new_fix)).max().unwrap_or(0).max(1) as f64 * 1.15;
    let names: Vec<String> = rows.iter().map(|r| r.round.clone()).collect();
    let label_of = |x: &f64| -> String {
        let i = x.round();
        if (x - i).abs() < 1e-6 && i >= 0.0 {
            names.get(i as usize).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!("Fails and fixes per round ({n_cases} registry cases)"),
            (FONT, 22).into_font(),
        )
        .margin(16)
        .x_label_area_size(42)
        // Room for the widest count label (about 9 px a digit).
        .y_label_area_size(24 + 9 * (y_top as u64).to_string().len() as u32)
        .build_cartesian_2d(-0.5..n as f64 - 0.5, 0.0..y_top)
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        // f64 key points land on whole numbers for these ranges; the
        // formatter blanks any that do not, so only round names show.
        .x_labels(n + 1)
        .x_label_formatter(&label_of)
        .y_label_formatter(&count_label)
        .y_desc("cases")
        .x_desc("round")
        .label_style((FONT, 14).into_font())
        .axis_desc_style((FONT, 15).into_font())
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.12))
        .draw()
        .map_err(draw_err)?;

    let plot = chart.plotting_area();
    // Labels must not collide when there are many rounds: decide from the
    // pixel width of one round's column what text fits.
    let col_px = f64::from(plot.dim_in_pixel().0) / n as f64;
    let bar_px = col_px * 0.34;
    let fits = |text: &str, px: f64| text.chars().count() as f64 * 7.5 + 4.0 <= px;
    // Shade injection rounds first so the bars draw on top.
    for (i, r) in rows.iter().enumerate() {
        if r.injected.is_empty() {
            continue;
        }
        let x = i as f64;
        plot.draw(&Rectangle::new(
            [(x - 0.47, 0.0), (x + 0.47, y_top)],
            INJECTION.mix(0.55).filled(),
        ))
        .map_err(draw_err)?;
        let long = format!("▼ injected ({})", r.injected.len());
        let label = if fits(&long, col_px) {
            long
        } else if col_px >= 14.0 {
            "▼".to_owned()
        } else {
            continue;
        };
        plot.draw(&Text::new(
            label,
            (x, y_top * 0.985),
            TextStyle::from((FONT, 13).into_font())
                .color(&INK)
                .pos(Pos::new(HPos::Center, VPos::Top)),
        ))
        .map_err(draw_err)?;
    }
    let count_style = TextStyle::from((FONT, 13).into_font())
        .color(&INK)
        .pos(Pos::new(HPos::Center, VPos::Bottom));
    let inner_style = TextStyle::from((FONT, 12).into_font())
        .color(&WHITE)
        .pos(Pos::new(HPos::Center, VPos::Center));
    // Segments shorter than this would not fit their own number.
    let min_label = y_top * 0.05;
    for (i, r) in rows.iter().enumerate() {
        let x = i as f64;
        let (l, rgt) = (x - 0.36, x - 0.02);
        let mut base = 0.0;
        for (value, color) in
            [(r.first_seen, FIRST_SEEN), (r.new_fail, NEW_FAIL), (r.persistent, PERSISTENT)]
        {
            if value == 0 {
                continue;
            }
            let top = base + value as f64;
            plot.draw(&Rectangle::new([(l, base), (rgt, top)], color.filled()))
                .map_err(draw_err)?;
            plot.draw(&Rectangle::new([(l, base), (rgt, top)], WHITE.stroke_width(1)))
                .map_err(draw_err)?;
            if value as f64 >= min_label && fits(&value.to_string(), bar_px) {
                plot.draw(&Text::new(
                    value.to_string(),
                    ((l + rgt) / 2.0, (base + top) / 2.0),
                    inner_style.clone(),
                ))
                .map_err(draw_err)?;
            }
            base = top;
        }
        // "N fails" over the stack when it fits, else the bare number, else
        // nothing (the axis still reads the height).
        let top_label = |n: u64, word: &str| {
            let long = format!("{n} {word}");
            if fits(&long, col_px / 2.0 + 10.0) {
                Some(long)
            } else if fits(&n.to_string(), col_px / 2.0) {
                Some(n.to_string())
            } else {
                None
            }
        };
        if let Some(text) = top_label(r.fails, "fails") {
            plot.draw(&Text::new(
                text,
                ((l + rgt) / 2.0, base + y_top * 0.01),
                count_style.clone(),
            ))
            .map_err(draw_err)?;
        }
        let (fl, fr) = (x + 0.02, x + 0.30);
        if r.new_fix > 0 {
            plot.draw(&Rectangle::new([(fl, 0.0), (fr, r.new_fix as f64)], FIXED.filled()))
                .map_err(draw_err)?;
        }
        if let Some(text) = top_label(r.new_fix, "fixed").filter(|_| i > 0) {
            plot.draw(&Text::new(
                text,
                ((fl + fr) / 2.0, r.new_fix as f64 + y_top * 0.01),
                count_style.clone(),
            ))
            .map_err(draw_err)?;
        }
    }
    Ok(())
}

/// Hits per knowledge-base entry over time: one line per entry, dates on the
/// x axis (`YYYY-MM-DD`, or a UTC timestamp whose date is used), counts on
/// the y axis. Counts of repeated dates within an entry are added up. Points
/// are joined in date order; dates the caller leaves out are not taken as 0,
/// since the series may be bucketed (per week, per distill) rather than daily.
pub fn hits_svg(series: &[(String, Vec<(String, u64)>)]) -> Result<String, ChartError> {
    // entry → day → count, validated before any drawing.
    let mut parsed: Vec<(&str, BTreeMap<i64, u64>)> = Vec::with_capacity(series.len());
    for (entry, points) in series {
        let mut days: BTreeMap<i64, u64> = BTreeMap::new();
        for (date, count) in points {
            let day = parse_date_days(date)
                .or_else(|| parse_utc_seconds(date).map(|s| (s / 86_400.0).floor() as i64))
                .ok_or_else(|| ChartError::InvalidDate {
                    entry: entry.clone(),
                    date: date.clone(),
                })?;
            *days.entry(day).or_insert(0) += count;
        }
        parsed.push((entry.as_str(), days));
    }
    let all_days = parsed.iter().flat_map(|(_, d)| d.keys().copied());
    let (lo, hi) = all_days.fold((i64::MAX, i64::MIN), |(lo, hi), d| (lo.min(d), hi.max(d)));
    let (lo, hi) = if lo > hi { (0, 0) } else { (lo, hi) };
    let y_top = parsed.iter().flat_map(|(_, d)| d.values().copied()).max().unwrap_or(0).max(1)
        as f64
        * 1.15;
    let span = (hi - lo).max(1);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        let (main, legend) = root.split_horizontally(WIDTH - LEGEND_W);
        // Label whole days only; plotters may also offer fractional points.
        let fmt = |x: &f64| {
            if (x - x.round()).abs() < 1e-6 {
                format_date_days(x.round() as i64)
            } else {
                String::new()
            }
        };
        let mut chart = ChartBuilder::on(&main)
            .caption("Knowledge-base hits per entry", (FONT, 22).into_font())
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(56)
            .build_cartesian_2d(lo as f64 - 0.5..(lo + span) as f64 + 0.5, 0.0..y_top)
            .map_err(draw_err)?;
        chart
            .configure_mesh()
            .x_labels(8)
            .x_label_formatter(&fmt)
            .y_label_formatter(&count_label)
            .y_desc("hits")
            .x_desc("date (UTC)")
            .label_style((FONT, 14).into_font())
            .axis_desc_style((FONT, 15).into_font())
            .light_line_style(WHITE.mix(0.0))
            .bold_line_style(BLACK.mix(0.12))
            .draw()
            .map_err(draw_err)?;
        if parsed.iter().all(|(_, d)| d.is_empty()) {
            chart
                .plotting_area()
                .draw(&Text::new(
                    "no hits recorded".to_owned(),
                    ((lo + span / 2) as f64, y_top / 2.0),
                    TextStyle::from((FONT, 18).into_font())
                        .color(&INK)
                        .pos(Pos::new(HPos::Center, VPos::Center)),
                ))
                .map_err(draw_err)?;
        }
        let mut legend_rows = Vec::with_capacity(parsed.len());
        for (i, (entry, days)) in parsed.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let pts: Vec<(f64, f64)> = days.iter().map(|(d, c)| (*d as f64, *c as f64)).collect();
            chart
                .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                .map_err(draw_err)?;
            chart
                .draw_series(pts.into_iter().map(|p| Circle::new(p, 4, color.filled())))
                .map_err(draw_err)?;
            let total: u64 = days.values().sum();
            // Clip the id, not the total, so the count always shows.
            legend_rows.push((color, format!("{} ({total})", clip(entry, 26))));
        }
        let shown = legend_rows.len().min(18);
        let mut rows: Vec<(RGBColor, String)> = legend_rows.iter().take(shown).cloned().collect();
        if legend_rows.len() > shown {
            rows.push((WHITE, format!("… {} more entries", legend_rows.len() - shown)));
        }
        draw_legend(&legend, "Entry (total hits)", &rows)?;
        root.present().map_err(draw_err)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_reject_bad_dates_and_draw_empty() {
        let bad = vec![("E1".to_string(), vec![("yesterday".to_string(), 1)])];
        assert_eq!(
            hits_svg(&bad).map_err(|e| e.to_string()),
            Err("entry 'E1' has an unparseable date 'yesterday'".into())
        );
        let empty = hits_svg(&[]).unwrap_or_default();
        assert!(empty.contains("no hits recorded"));
        let svg = hits_svg(&[(
            "TRAP-a<b>".to_string(),
            vec![("2026-09-01".into(), 2), ("2026-09-03T10:00:00Z".into(), 1)],
        )])
        .unwrap_or_default();
        // Text is escaped and present as real <text>, not paths.
        assert!(svg.contains("TRAP-a&lt;b&gt; (3)"));
        assert!(svg.contains("2026-09-01"));
    }

    #[test]
    fn recurrence_chart_without_data() {
        let svg = recurrence_svg(&[], &[]).unwrap_or_default();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("0 registry cases"));
    }
}
