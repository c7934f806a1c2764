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

/// Parses `YYYY-MM-DD` (exactly that form, a real calendar date) into days since the Unix
/// epoch. Dates go through `jiff`, the one date implementation of the workspace.
pub fn parse_date_days(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let date: jiff::civil::Date = s.parse().ok()?;
    Some(i64::from(date.since(jiff::civil::date(1970, 1, 1)).ok()?.get_days()))
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
    if hms.len() != 8
        || !hms.bytes().enumerate().all(|(i, b)| {
            if i == 2 || i == 5 {
                b == b':'
            } else {
                b.is_ascii_digit()
            }
        })
    {
        return None;
    }
    let time: jiff::civil::Time = hms.parse().ok()?;
    let frac = match frac {
        Some(f) if !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()) => {
            format!("0.{f}").parse::<f64>().ok()?
        }
        Some(_) => return None,
        None => 0.0,
    };
    let whole = days * 86_400
        + i64::from(time.hour()) * 3_600
        + i64::from(time.minute()) * 60
        + i64::from(time.second());
    Some(whole as f64 + frac)
}

/// Formats days since the epoch as `YYYY-MM-DD` (dates outside jiff's years -9999 to 9999 are
/// clamped to its range).
pub fn format_date_days(days: i64) -> String {
    let epoch = jiff::civil::date(1970, 1, 1);
    let span = jiff::Span::new().days(days.clamp(-4_371_587, 2_932_896));
    let date = epoch.checked_add(span).unwrap_or(if days < 0 {
        jiff::civil::Date::MIN
    } else {
        jiff::civil::Date::MAX
    });
    date.strftime("%Y-%m-%d").to_string()
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
