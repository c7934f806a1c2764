//! Small shared helpers: decimal rounding for reported figures, UTC timestamp
//! and date parsing (without a date-time dependency), and the numeric order of
//! round names like `R12`.

/// Rounds half away from zero to `places` decimals, as Python's `round` does
/// for the values we report (it differs only on exact binary ties, which
/// counts-over-counts ratios do not produce at 3 or 4 decimals in practice).
pub fn round_to(value: f64, places: i32) -> f64 {
    let factor = 10f64.powi(places);
    let scaled = (value * factor).round() / factor;
    // Normalise -0.0 so JSON never shows "-0.0".
    if scaled == 0.0 {
        0.0
    } else {
        scaled
    }
}

/// `num / den` rounded to 4 decimals, or `None` when `den` is zero: an
/// undefined rate is reported as null rather than as a misleading 0.
pub fn rate4(num: u64, den: u64) -> Option<f64> {
    if den == 0 {
        None
    } else {
        Some(round_to(num as f64 / den as f64, 4))
    }
}

/// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`), so we need no date-time crate.
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = i64::from(month);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Days since 1970-01-01 back to (year, month, day): the inverse of
/// Hinnant's `days_from_civil`.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = if m <= 2 { y + 1 } else { y };
    // d is in 1..=31 and m in 1..=12 by construction.
    (year, m as u32, d as u32)
}

fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(year) => 29,
        2 => 28,
        _ => 0,
    }
}

fn digits(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Parses `YYYY-MM-DD` into days since the Unix epoch.
pub fn parse_date_days(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let year = i64::from(digits(s.get(0..4)?)?);
    let month = digits(s.get(5..7)?)?;
    let day = digits(s.get(8..10)?)?;
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    Some(days_from_civil(year, month, day))
}

/// Parses a UTC timestamp `YYYY-MM-DDTHH:MM:SS[.fff](Z|+00:00)` into seconds
/// since the Unix epoch. statectl writes `...Z`; the `+00:00` form and a bare
/// timestamp (no zone, read as UTC, as Python's naive datetimes are) are
/// accepted because hand-edited timelines use them. Anything else is `None`.
pub fn parse_utc_seconds(s: &str) -> Option<f64> {
    let s = s.trim();
    let date_part = s.get(0..10)?;
    let days = parse_date_days(date_part)?;
    let rest = s.get(10..)?;
    let rest = rest.strip_prefix('T').or_else(|| rest.strip_prefix(' '))?;
    let rest = rest.strip_suffix('Z').or_else(|| rest.strip_suffix("+00:00")).unwrap_or(rest);
    let (hms, frac) = match rest.split_once('.') {
        Some((hms, frac)) => (hms, Some(frac)),
        None => (rest, None),
    };
    let mut parts = hms.split(':');
    let (h, m, sec) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || h.len() != 2 || m.len() != 2 || sec.len() != 2 {
        return None;
    }
    let (h, m, sec) = (digits(h)?, digits(m)?, digits(sec)?);
    if h > 23 || m > 59 || sec > 59 {
        return None;
    }
    let frac = match frac {
        Some(f) => {
            digits(f)?;
            format!("0.{f}").parse::<f64>().ok()?
        }
        None => 0.0,
    };
    let whole = days * 86_400 + i64::from(h) * 3_600 + i64::from(m) * 60 + i64::from(sec);
    Some(whole as f64 + frac)
}

/// Formats days since the epoch as `YYYY-MM-DD`.
pub fn format_date_days(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The `n` of a round named `R<n>` (case-sensitive `R`, decimal digits).
pub fn round_number(name: &str) -> Option<u64> {
    let digits = name.strip_prefix('R')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Sort key for round names when no iteration log fixes their order:
/// `R<n>` by `n`, then any other names lexicographically after them.
pub fn round_sort_key(name: &str) -> (u8, u64, &str) {
    match round_number(name) {
        Some(n) => (0, n, name),
        None => (1, 0, name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_statectl_timestamps() {
        assert_eq!(parse_utc_seconds("1970-01-01T00:00:00Z"), Some(0.0));
        let a = parse_utc_seconds("2026-09-04T05:23:54Z");
        let b = parse_utc_seconds("2026-09-04T10:58:50Z");
        assert_eq!(b.zip(a).map(|(b, a)| b - a), Some(20_096.0));
        assert_eq!(parse_utc_seconds("2024-02-29T12:00:00.5+00:00"), Some(1_709_208_000.5));
        for bad in [
            "",
            "2026-13-01T00:00:00Z",
            "2025-02-29T00:00:00Z",
            "2026-09-04T24:00:00Z",
            "2026-09-04",
            "x026-09-04T00:00:00Z",
            "2026-09-04T00:00:00+02:00",
            "2026-09-04T1:00:00Z",
        ] {
            assert_eq!(parse_utc_seconds(bad), None, "{bad}");
        }
    }

    #[test]
    fn dates_round_trip() {
        for days in [-1000, 0, 19_000, 20_697, 30_000] {
            assert_eq!(parse_date_days(&format_date_days(days)), Some(days));
        }
    }

    #[test]
    fn rounding_and_rates() {
        assert_eq!(rate4(2, 3), Some(0.6667));
        assert_eq!(rate4(20, 39), Some(0.5128));
        assert_eq!(rate4(1, 0), None);
        assert_eq!(round_to(3_354.333_333, 3), 3_354.333);
    }

    #[test]
    fn round_names_order_numerically() {
        let mut names = vec!["R10", "R2", "final", "R0"];
        names.sort_by_key(|n| round_sort_key(n));
        assert_eq!(names, ["R0", "R2", "R10", "final"]);
    }
}
