//! The relevance set: queries built from the real sample (Chinese, English, mixed), each with
//! the ids that should rank in the top 5, judged by reading the entries. evokb's search and the
//! old tool's BM25 with CJK bigrams (the baseline, reimplemented from the spec over the same
//! documents) are both scored by precision@5, printed, and held to a floor.

use std::collections::HashMap;

use evokb_store::search::SearchQuery;

use crate::support::*;

#[derive(serde::Deserialize)]
struct Judged {
    query: String,
    lang: String,
    relevant: Vec<String>,
}

/// The old tool's tokeniser (spec §2): lowercase; latin runs of `[a-z0-9_-]{2,}`; CJK
/// characters collected in order, ignoring what lies between, paired into bigrams.
fn old_tokens(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut run = String::new();
    let mut cjk: Vec<char> = Vec::new();
    for c in text.to_lowercase().chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-' {
            run.push(c);
            continue;
        }
        if run.chars().count() >= 2 {
            tokens.push(std::mem::take(&mut run));
        }
        run.clear();
        if ('\u{4e00}'..='\u{9fff}').contains(&c) {
            cjk.push(c);
        }
    }
    if run.chars().count() >= 2 {
        tokens.push(run);
    }
    tokens.extend(cjk.windows(2).map(|w| w.iter().collect::<String>()));
    tokens
}

/// The old tool's BM25 (k1 = 1.5, b = 0.75) over `docs` as (id, text); stable sort.
fn old_search(docs: &[(String, String)], query: &str, top: usize) -> Vec<String> {
    let toks: Vec<Vec<String>> = docs.iter().map(|(_, t)| old_tokens(t)).collect();
    let mut df: HashMap<&str, f64> = HashMap::new();
    for t in &toks {
        let mut seen: Vec<&str> = t.iter().map(String::as_str).collect();
        seen.sort_unstable();
        seen.dedup();
        for s in seen {
            *df.entry(s).or_insert(0.0) += 1.0;
        }
    }
    let n = docs.len() as f64;
    let avgdl = toks.iter().map(Vec::len).sum::<usize>() as f64 / n;
    let q = old_tokens(query);
    let mut scored: Vec<(usize, f64)> = toks
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let dl = t.len() as f64;
            let score = q
                .iter()
                .filter_map(|qt| {
                    let d = *df.get(qt.as_str())?;
                    let f = t.iter().filter(|x| *x == qt).count() as f64;
                    let idf = (1.0 + (n - d + 0.5) / (d + 0.5)).ln();
                    Some(idf * f * 2.5 / (f + 1.5 * (1.0 - 0.75 + 0.75 * dl / avgdl)))
                })
                .sum::<f64>();
            (i, score)
        })
        .filter(|(_, s)| *s > 0.0)
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    scored.into_iter().take(top).map(|(i, _)| docs[i].0.clone()).collect()
}

fn precision_at_5(ranked: &[String], relevant: &[String]) -> f64 {
    let hits = ranked.iter().take(5).filter(|id| relevant.contains(id)).count();
    hits as f64 / relevant.len().clamp(1, 5) as f64
}

#[test]
fn precision_at_5_on_the_relevance_set() {
    let set: Vec<Judged> = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/relevance.json"),
        )
        .expect("read"),
    )
    .expect("relevance.json");
    assert!(set.len() >= 15);
    assert!(set.iter().any(|j| j.query == "fp16 golden opmath 精度"));
    let (_kb, store) = imported_sample();
    let docs: Vec<(String, String)> = store
        .read()
        .expect("r")
        .search_docs()
        .expect("docs")
        .into_iter()
        .map(|d| (d.id.clone(), format!("{} {} {}", d.id, d.title, d.body)))
        .collect();
    let ids: Vec<&str> = docs.iter().map(|(i, _)| i.as_str()).collect();
    let (mut ours, mut base) = (Vec::new(), Vec::new());
    let mut by_lang: HashMap<&str, (f64, f64, usize)> = HashMap::new();
    for j in &set {
        for r in &j.relevant {
            assert!(ids.contains(&r.as_str()), "judged id {r} is not in the sample");
        }
        let q = SearchQuery { text: j.query.clone(), top: 5, ..Default::default() };
        let got: Vec<String> =
            store.search(&q).expect("search").hits.into_iter().map(|h| h.id).collect();
        let p = precision_at_5(&got, &j.relevant);
        let b = precision_at_5(&old_search(&docs, &j.query, 5), &j.relevant);
        ours.push(p);
        base.push(b);
        let e = by_lang.entry(j.lang.as_str()).or_insert((0.0, 0.0, 0));
        *e = (e.0 + p, e.1 + b, e.2 + 1);
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    println!(
        "precision@5 over {} queries: evokb {:.3}, old-tool bigram BM25 {:.3}",
        set.len(),
        mean(&ours),
        mean(&base)
    );
    let mut langs: Vec<_> = by_lang.into_iter().collect();
    langs.sort_by(|a, b| a.0.cmp(b.0));
    for (lang, (p, b, n)) in langs {
        println!("  {lang:<6} n={n:<3} evokb {:.3}  baseline {:.3}", p / n as f64, b / n as f64);
    }
    assert!(mean(&ours) >= 0.80, "evokb precision@5 fell to {:.3}", mean(&ours));
    assert!(mean(&ours) >= mean(&base) - 0.05, "evokb ranks clearly worse than the old tool");
}
