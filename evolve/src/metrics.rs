//! The figures the `stats.md` metrics table (§3) publishes in its `当前值` column, computed from
//! the task timelines in the store.

use evokb_analytics::{stored, timeline};
use evokb_store::{ReadTxn, StoreError};

fn rate(r: Option<f64>) -> String {
    r.map_or_else(|| "-".to_string(), |r| format!("{r:.4}"))
}

/// The value of each metrics-table row this store can compute, by the row's `指标` key; empty
/// when the store has no timelines.
pub fn metric_row_values(txn: &ReadTxn) -> Result<Vec<(String, String)>, StoreError> {
    // Only the timelines: the registry is not needed here and may be large.
    let tasks = stored::load_tasks(txn)?;
    if tasks.is_empty() {
        return Ok(Vec::new());
    }
    let m = timeline::metrics(&tasks);
    let n = m.tasks;
    let profile: Vec<String> = m
        .stage_duration_profile
        .iter()
        .map(|(s, p)| format!("S{s}: median {} s, mean {} s (n={})", p.median, p.mean, p.n))
        .collect();
    let mut out = vec![
        (
            "first_pass_rate".to_string(),
            format!(
                "{}（{}/{}，evokb 由 {n} 条 timeline 计算）",
                rate(m.first_pass_rate.rate),
                m.first_pass_rate.passed,
                m.first_pass_rate.tasks
            ),
        ),
        (
            "同类错误复发率".to_string(),
            format!(
                "{}（{}/{} 失败模式跨任务复发，evokb 由 timeline 计算）",
                rate(m.recurrence.rate),
                m.recurrence.recurring_modes,
                m.recurrence.failure_modes
            ),
        ),
        (
            "design_revision_avg".to_string(),
            format!("{}（n={n}，evokb 由 timeline 计算）", rate(m.design_revision_avg.avg)),
        ),
        ("stage_duration_profile".to_string(), profile.join(" / ")),
    ];
    out.retain(|(_, v)| !v.is_empty());
    Ok(out)
}
