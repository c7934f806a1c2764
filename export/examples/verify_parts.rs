//! Times the parts of `evokb verify` on one store, to find where a whole-store check spends
//! its time:
//!
//!     cargo build --release -j2 --workspace --examples
//!     target/release/examples/verify_parts KB_ROOT

use std::time::Instant;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// CPU time (user + system, all threads) of this process so far, from /proc/self/stat: on a
/// shared machine the wall clock says more about the neighbours than about the code.
fn cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    // Fields 14 and 15 of the line (utime, stime) are the 12th and 13th after the `)`, counting
    // the state letter (field 3): every field is kept, numeric or not, so none shifts.
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

struct Clock(Instant, f64);

impl Clock {
    fn start() -> Clock {
        Clock(Instant::now(), cpu())
    }
    fn lap(&mut self, what: &str) {
        println!(
            "{what:<28} {:>8.3} s wall {:>8.2} s CPU",
            self.0.elapsed().as_secs_f64(),
            cpu() - self.1
        );
        *self = Clock::start();
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root =
        std::path::PathBuf::from(std::env::args().nth(1).ok_or("usage: verify_parts KB_ROOT")?);
    let layout = evokb_export::layout::Layout::load(&root)?;
    let mut t = Clock::start();
    let mut store =
        evokb_store::Store::open(&root.join(".evokb"), evokb_export::index::indexer(layout))?;
    t.lap("open");
    store.check_integrity()?;
    t.lap("check_integrity");
    let txn = store.read()?;
    let n = txn.records()?.len();
    t.lap(&format!("records ({n})"));
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let n = txn.records_in_parallel(threads)?.len();
    t.lap(&format!("records on {threads} threads ({n})"));
    let n = txn.files()?.len();
    t.lap(&format!("files ({n})"));
    let p = txn.check_facet_index()?.len();
    t.lap(&format!("facet check ({p})"));
    txn.digest()?;
    t.lap("digest");
    drop(txn);
    let r = evokb_export::verify(&store)?;
    t.lap(&format!("verify ({} problems)", r.problems.len()));
    Ok(())
}
