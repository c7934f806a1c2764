//! Prints every table of a store file with its entry count and bytes (stored, B-tree
//! metadata, fragmented), largest first, then the file size: where a store's bytes go.
//!
//!     cargo run --release -p evokb-store --example table_sizes -- KB/.evokb/evokb.redb

use redb::{ReadableDatabase, ReadableTableMetadata};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: table_sizes STORE.redb")?;
    let db = redb::Database::open(&path)?;
    let txn = db.begin_read()?;
    let mut rows = Vec::new();
    for handle in txn.list_tables()? {
        let table = txn.open_untyped_table(handle)?;
        let stats = table.stats()?;
        rows.push((
            stats.stored_bytes() + stats.metadata_bytes() + stats.fragmented_bytes(),
            table.len()?,
            stats,
            redb::TableHandle::name(&table).to_string(),
        ));
    }
    rows.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.3.cmp(&b.3)));
    println!(
        "{:>12} {:>10} {:>12} {:>12} {:>12}  table",
        "total", "entries", "stored", "metadata", "fragmented"
    );
    for (total, len, s, name) in &rows {
        println!(
            "{total:>12} {len:>10} {:>12} {:>12} {:>12}  {name}",
            s.stored_bytes(),
            s.metadata_bytes(),
            s.fragmented_bytes()
        );
    }
    let listed: u64 = rows.iter().map(|r| r.0).sum();
    println!("tables: {listed} bytes; file: {} bytes", std::fs::metadata(&path)?.len());
    Ok(())
}
