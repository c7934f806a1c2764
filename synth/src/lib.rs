//! # evokb-synth (dev-only)
//!
//! Synthetic knowledge bases in the real format, for benchmarks and scale tests.
//!
//! The generator is deterministic (a fixed xorshift sequence from the seed), writes the same file
//! set as a real knowledge base, and mixes Chinese and English text the way the real entries do,
//! so parse and search costs are representative.

use std::fmt::Write as _;
use std::path::Path;

use evokb_export::layout::defaults::{BOTTLENECKS, GAPS, INDEX, PL_DIR, QUEUE, SEARCH_LOG, STATS};

const TOPICS: [&str; 7] =
    ["layout", "elementwise", "attention", "traps-compiler", "traps-runtime", "constants", "cases"];
const KINDS: [&str; 4] = ["pattern", "trap", "case", "constant"];
const FAMILIES: [&str; 10] = [
    "attention",
    "elementwise",
    "norm",
    "reduction",
    "pooling",
    "gemm",
    "layout",
    "ssd",
    "expert",
    "softmax",
];
const APIS: [&str; 12] = [
    "T.copy",
    "T.vadd",
    "T.vmul",
    "T.gemm",
    "T.transpose",
    "T.vcast",
    "T.serial",
    "T.alloc_shared",
    "T.load_nd2nz",
    "T.vbrc",
    "T.vcmp",
    "T.store_fixpipe",
];
const DTYPES: [&str; 4] = ["fp16", "bf16", "fp32", "int8"];
const WORDS_ZH: [&str; 16] = [
    "搬运",
    "带宽",
    "流水",
    "重叠",
    "精度",
    "对齐",
    "标量",
    "向量化",
    "转置",
    "分块",
    "调优",
    "陷阱",
    "编译器",
    "运行时",
    "缓冲",
    "实测",
];
const WORDS_EN: [&str; 16] = [
    "MTE2",
    "UB",
    "L1",
    "L0C",
    "msprof",
    "persistent",
    "tiling",
    "golden",
    "opmath",
    "bandwidth",
    "pipeline",
    "overlap",
    "workload",
    "kernel",
    "latency",
    "throughput",
];

/// A small deterministic random source (xorshift64*), so corpora are the same on every machine.
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed` (0 is replaced by a fixed constant).
    pub fn new(seed: u64) -> Rng {
        Rng(if seed == 0 { 0x9e37_79b9_7f4a_7c15 } else { seed })
    }

    /// The next value.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A value in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// A random element of `items`.
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    fn list(&mut self, items: &[&str], max: usize) -> String {
        let n = 1 + self.below(max);
        let mut chosen: Vec<&str> = Vec::new();
        for _ in 0..n {
            let it = self.pick(items);
            if !chosen.contains(&it) {
                chosen.push(it);
            }
        }
        format!("[{}]", chosen.join(", "))
    }

    fn sentence(&mut self, words: usize) -> String {
        let mut s = String::new();
        for i in 0..words {
            if i % 2 == 0 {
                s.push_str(self.pick(&WORDS_ZH));
            } else {
                let _ = write!(s, " {} ", self.pick(&WORDS_EN));
            }
        }
        let _ = write!(s, "（实测 {}.{}µs）", self.below(900), self.below(10));
        s
    }
}

/// The id of synthetic entry `i`.
pub fn entry_id(i: usize, topic: &str) -> String {
    let prefix = match topic {
        "traps-compiler" | "traps-runtime" => "TRAP",
        "constants" => "CONST",
        "cases" => "CASE",
        _ => "PL",
    };
    format!("{prefix}-{i}-synthetic-{topic}")
}

/// Writes a synthetic knowledge base with `n_entries` entries under `root`, in one topic file
/// per topic.
pub fn write_kb(root: &Path, n_entries: usize, seed: u64) -> std::io::Result<()> {
    write_kb_shaped(root, n_entries, seed, 1)
}

/// [`write_kb`] with `files_per_topic` topic files per topic (`attention-0000.md`, …), the
/// entries dealt round-robin: the shape of a large real library, many files of a few dozen
/// entries each, rather than a few huge ones. With 1 the files and bytes are [`write_kb`]'s.
pub fn write_kb_shaped(
    root: &Path,
    n_entries: usize,
    seed: u64,
    files_per_topic: usize,
) -> std::io::Result<()> {
    let mut rng = Rng::new(seed);
    let per = files_per_topic.max(1);
    let n_files = TOPICS.len() * per;
    let file_name = |f: usize| {
        let topic = TOPICS[f % TOPICS.len()];
        if per == 1 {
            topic.to_string()
        } else {
            format!("{topic}-{:04}", f / TOPICS.len())
        }
    };
    let mut topics: Vec<String> = (0..n_files)
        .map(|f| format!("# {}\n\n> 合成主题文件（synthetic）。\n", file_name(f)))
        .collect();
    let mut index_rows: Vec<String> = vec![String::new(); n_files];
    for i in 0..n_entries {
        let t = i % n_files;
        let topic = TOPICS[t % TOPICS.len()];
        let id = entry_id(i, topic);
        let title = rng.sentence(4);
        let status = if rng.below(10) == 0 { "stale" } else { "verified" };
        let _ = write!(
            topics[t],
            "\n---\nid: {id}\nkind: {kind}\nfamily: {family}\napis: {apis}\ndtype: {dtype}\ndevice: 910B2C\nstatus: {status}\norigin_task: task-{task}-20260907T025419Z\ntoolchain: tilelang 0.1.2+ed787bb（2026-09-07 build）/ Ascend910B2C / CANN 8.5.0\nrepro: repro-missing\n---\n\n### {title}\n\n- {a}\n- {b}\n- 溯源：task-{task}，`examples/x/{i}/opt_log.md`。\n",
            kind = rng.pick(&KINDS),
            family = rng.list(&FAMILIES, 3),
            apis = rng.list(&APIS, 4),
            dtype = rng.list(&DTYPES, 3),
            task = rng.below(500),
            a = rng.sentence(12),
            b = rng.sentence(8),
        );
        let _ = writeln!(index_rows[t], "| {id} | {} | {status} |", title.replace('|', "\\|"));
    }
    let pl = root.join(PL_DIR);
    std::fs::create_dir_all(&pl)?;
    let mut index = String::from("# 合成索引\n\n## 4. 条目索引\n");
    for (t, text) in topics.iter().enumerate() {
        let name = file_name(t);
        std::fs::write(pl.join(format!("{name}.md")), text)?;
        let _ = write!(
            index,
            "\n### {name}.md — 合成\n\n| ID | 一句话 | 状态 |\n|----|--------|------|\n{}",
            index_rows[t]
        );
    }
    std::fs::write(root.join(INDEX), index)?;
    let evolution = root.join(".agents/evolution");
    std::fs::create_dir_all(&evolution)?;
    let mut queue = String::from("# 进化提案队列\n\n---\n\n## Pending\n\n");
    for v in 0..(n_entries / 10).max(1) {
        let _ = write!(
            queue,
            "## VP-{}-{:04}\n\n- type: P\n- title: {}\n- evidence:\n  - task-{} opt_log\n- repro: repro-missing\n- toolchain_stamp: tilelang 0.1.2 / CANN 8.5.0\n- target_doc: {PL_DIR}/attention.md\n- delta: |\n    add {}\n- status: pending\n- confirmations: 1/2\n- created_by: task t-{v} 2026-09-07\n- decided_by: -\n- decided_note: -\n\n",
            // Ids have four digits per year: past 10,000 items the year moves on, so every id
            // stays unique (a repeated id is an import error).
            2026 + v / 10000,
            v % 10000,
            rng.sentence(3),
            rng.below(500),
            rng.sentence(6),
        );
    }
    queue.push_str("---\n\n## Decided（merged / rejected / expired / conflict 归档）\n");
    std::fs::write(root.join(QUEUE), queue)?;
    let mut bps = String::from("# 瓶颈模式\n\n");
    for b in 0..20 {
        let _ = write!(
            bps,
            "## BP_synthetic_{b}：{}\n\n### 触发信号\n- {}\n\n",
            rng.sentence(2),
            rng.sentence(10)
        );
    }
    std::fs::write(root.join(BOTTLENECKS), bps)?;
    let mut gaps = String::from("# Capability Gaps\n\n## Open\n\n");
    for g in 0..10 {
        let _ = write!(gaps, "### CG-2026-{g:04}\n\n```yaml\ngap_id: CG-2026-{g:04}\nlayer: codegen\ncapability: >-\n  {}\nstatus: open\n```\n\n", rng.sentence(6));
    }
    std::fs::write(root.join(GAPS), gaps)?;
    let stats = "# 进化统计\n\n## 2. 条目命中统计\n\n| entry | hits | last_hit_task | note |\n|-------|------|---------------|------|\n\n## 4. 变更日志\n\n| date | by | change |\n|------|-----|--------|\n| 2026-09-01 | synth | 创建 |\n";
    std::fs::write(root.join(STATS), stats)?;
    let mut log = String::new();
    for e in 0..(n_entries / 10).max(1) {
        let a = entry_id(e, TOPICS[e % TOPICS.len()]);
        let _ = writeln!(log, "{{\"ts\": \"2026-09-10T09:{:02}:{:02}Z\", \"query\": \"{}\", \"returned\": [\"{a}\"]}}", (e / 60) % 60, e % 60, rng.pick(&WORDS_ZH));
    }
    std::fs::write(root.join(SEARCH_LOG), log)?;
    Ok(())
}
