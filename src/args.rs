//! Value parsers for the numeric and date flags: every number has a range and every date is
//! checked against the calendar (with `jiff`), so a bad value is a usage error (exit 2) that
//! names the flag and the expected form, never an allocation of gigabytes, an overflow or a
//! date that sorts as if it were real.
//!
//! Dates keep the text the user wrote: `--since` is compared as a prefix with the search
//! events' `ts` (`2026-09-10T09:04:18Z`), so only forms that compare correctly that way are
//! accepted.

/// The most results `search --top` returns.
pub const MAX_TOP: usize = 1000;

/// `search --top`: 1 to [`MAX_TOP`].
pub fn top(s: &str) -> Result<usize, String> {
    bounded(s, 1, MAX_TOP)
}

/// The largest `--offset` and `query --limit`: far beyond any store, small enough that no
/// window arithmetic overflows.
pub const MAX_WINDOW: usize = 1_000_000_000;

/// `--offset`: 0 to [`MAX_WINDOW`].
pub fn offset(s: &str) -> Result<usize, String> {
    bounded(s, 0, MAX_WINDOW)
}

/// `query --limit`: 1 to [`MAX_WINDOW`].
pub fn limit(s: &str) -> Result<usize, String> {
    bounded(s, 1, MAX_WINDOW)
}

/// A whole number in `min..=max`.
fn bounded(s: &str, min: usize, max: usize) -> Result<usize, String> {
    let expected = format!("expected a whole number from {min} to {max}");
    let n: usize = s.trim().parse().map_err(|_| format!("'{s}' is not a number; {expected}"))?;
    if n < min || n > max {
        return Err(format!("{n} is out of range; {expected}"));
    }
    Ok(n)
}

/// `--today`: a calendar date `YYYY-MM-DD`.
pub fn date(s: &str) -> Result<String, String> {
    civil_date(s).map(|_| s.to_string()).ok_or_else(|| {
        format!("'{s}' is not a valid date; expected YYYY-MM-DD with a real month and day, e.g. 2026-09-10")
    })
}

/// `stats hits --since`: a date `YYYY-MM-DD` or a UTC timestamp `YYYY-MM-DDTHH:MM:SSZ`.
pub fn since(s: &str) -> Result<String, String> {
    let ok = match s.len() {
        10 => civil_date(s).is_some(),
        20 => utc_timestamp(s).is_some(),
        _ => false,
    };
    if ok {
        Ok(s.to_string())
    } else {
        Err(format!(
            "'{s}' is not a valid date or UTC timestamp; expected YYYY-MM-DD (e.g. 2026-09-10) or YYYY-MM-DDTHH:MM:SSZ (e.g. 2026-09-10T09:04:18Z)"
        ))
    }
}

/// `YYYY-MM-DD` with four-digit year and a day that exists in its month.
fn civil_date(s: &str) -> Option<jiff::civil::Date> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let year: i16 = digits(s.get(0..4)?)?;
    let month: i8 = digits(s.get(5..7)?)?;
    let day: i8 = digits(s.get(8..10)?)?;
    jiff::civil::Date::new(year, month, day).ok()
}

/// `YYYY-MM-DDTHH:MM:SSZ`, a real date and time of day.
fn utc_timestamp(s: &str) -> Option<jiff::civil::DateTime> {
    let b = s.as_bytes();
    if b.len() != 20 || b[10] != b'T' || b[13] != b':' || b[16] != b':' || b[19] != b'Z' {
        return None;
    }
    let date = civil_date(s.get(0..10)?)?;
    let hour: i8 = digits(s.get(11..13)?)?;
    let minute: i8 = digits(s.get(14..16)?)?;
    let second: i8 = digits(s.get(17..19)?)?;
    let time = jiff::civil::Time::new(hour, minute, second, 0).ok()?;
    Some(date.to_datetime(time))
}

/// An all-ASCII-digit field parsed as a number (no sign, no spaces).
fn digits<T: std::str::FromStr>(s: &str) -> Option<T> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_checked_against_the_calendar() {
        assert_eq!(date("2026-09-10").as_deref(), Ok("2026-09-10"));
        assert_eq!(date("2028-02-29").as_deref(), Ok("2028-02-29"));
        for bad in [
            "2026-02-31",
            "2026-13-45",
            "2027-02-29",
            "9000000000000000000-01-01",
            "",
            "+026-01-01",
        ] {
            assert!(date(bad).is_err(), "{bad}");
        }
        assert!(since("2026-09-10T09:04:18Z").is_ok());
        assert!(since("2026-09-10T24:00:00Z").is_err());
        assert!(since("2026-09-10T09:04:18").is_err());
    }

    #[test]
    fn numbers_have_ranges() {
        assert_eq!(top("8"), Ok(8));
        assert!(top("0").is_err());
        assert!(top("4294967295").is_err());
        assert!(top("-1").is_err());
        assert!(top("18446744073709551616").is_err());
    }
}
