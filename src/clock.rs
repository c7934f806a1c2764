//! The current time, which `EVOKB_NOW` (unix seconds) fixes for reproducible tests.
//!
//! `EVOKB_NOW` is parsed strictly: a value that is not a whole number of seconds within the
//! years jiff represents (-9999 to 9999) is ignored with a warning on stderr, so it can neither
//! overflow date arithmetic nor produce a date that no other tool can read.

/// `EVOKB_NOW` as a timestamp, when it is set to a usable value.
pub fn fixed() -> Option<jiff::Timestamp> {
    let raw = std::env::var("EVOKB_NOW").ok()?;
    let parsed = raw.trim().parse::<i64>().ok().and_then(|s| jiff::Timestamp::from_second(s).ok());
    if parsed.is_none() {
        eprintln!(
            "evokb: ignoring EVOKB_NOW='{raw}': expected unix seconds between {} and {}",
            jiff::Timestamp::MIN.as_second(),
            jiff::Timestamp::MAX.as_second()
        );
    }
    parsed
}

/// Now, from `EVOKB_NOW` or the system clock.
pub fn now() -> jiff::Timestamp {
    fixed().unwrap_or_else(jiff::Timestamp::now)
}

/// Now in UTC as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_now() -> String {
    now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Today's UTC date as `YYYY-MM-DD`.
pub fn utc_today() -> String {
    now().strftime("%Y-%m-%d").to_string()
}
