//! Model-based test of the write protocol: random interleavings of what agents and people do
//! (store-side sets, hand edits of topic files, renders, imports with and without `--prefer`,
//! recorded hits), run on the real sample and checked after every step against a sequential
//! model of the sync rules. The model predicts each operation's outcome (done, refused as
//! edited, refused as a conflict) and the status every entry then has in the store, in its
//! INDEX row and on disk, so a lost acknowledged write or a false refusal is a failure.

use std::collections::BTreeMap;
use std::path::Path;

use evokb_evolve::hits;
use evokb_export::{mutate, ImportError, ImportOptions, Prefer, RenderError};
use evokb_store::{Kind, Store};
use proptest::prelude::*;

use crate::support::*;

/// The entries the model follows: two share a topic file, one lives alone in another.
const ENTRIES: [(&str, &str); 3] = [
    ("PL-1.9-blockwidth", "attention.md"),
    ("PL-1.12-task-pipeline-depth2", "attention.md"),
    ("PL-1.2-caxis-accum", "layout.md"),
];
const VALUES: [&str; 3] = ["verified", "stale", "draft"];

#[derive(Debug, Clone)]
enum Op {
    /// `evokb set ID status V`.
    Set(usize, usize),
    /// A person edits the entry's status line in its topic file.
    Edit(usize, usize),
    /// `evokb render`.
    Render,
    /// `evokb import [--prefer …]`.
    Import(Option<Prefer>),
    /// `evokb search` that returned the entry (a recorded hit).
    Hit(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..3usize, 0..3usize).prop_map(|(e, v)| Op::Set(e, v)),
        2 => (0..3usize, 0..3usize).prop_map(|(e, v)| Op::Edit(e, v)),
        2 => Just(Op::Render),
        2 => Just(Op::Import(None)),
        1 => Just(Op::Import(Some(Prefer::File))),
        1 => Just(Op::Import(Some(Prefer::Store))),
        1 => (0..3usize).prop_map(Op::Hit),
    ]
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Done,
    EditedOnDisk,
    Conflict,
}

/// The sync rules, sequentially, over the statuses of [`ENTRIES`].
#[derive(Debug, Clone)]
struct Model {
    store: Vec<String>,
    index: Vec<String>,
    disk: Vec<String>,
    /// Each entry's text as last imported or rendered.
    mark: Vec<String>,
    /// Each topic file's entry statuses as last imported or rendered.
    file_mark: BTreeMap<&'static str, Vec<String>>,
    hits: usize,
}

impl Model {
    fn new() -> Model {
        let start = vec!["verified".to_string(); ENTRIES.len()];
        let mut file_mark = BTreeMap::new();
        for (_, f) in ENTRIES {
            file_mark.insert(f, Vec::new());
        }
        let mut m = Model {
            store: start.clone(),
            index: start.clone(),
            disk: start.clone(),
            mark: start,
            file_mark,
            hits: 0,
        };
        for f in m.files() {
            let now = m.disk_of(f);
            m.file_mark.insert(f, now);
        }
        m
    }

    fn files(&self) -> Vec<&'static str> {
        self.file_mark.keys().copied().collect()
    }

    fn in_file(f: &str) -> Vec<usize> {
        (0..ENTRIES.len()).filter(|&e| ENTRIES[e].1 == f).collect()
    }

    fn disk_of(&self, f: &str) -> Vec<String> {
        Model::in_file(f).into_iter().map(|e| self.disk[e].clone()).collect()
    }

    fn store_of(&self, f: &str) -> Vec<String> {
        Model::in_file(f).into_iter().map(|e| self.store[e].clone()).collect()
    }

    fn step(&mut self, op: &Op) -> Outcome {
        match op {
            Op::Set(e, v) => {
                self.store[*e] = VALUES[*v].into();
                self.index[*e] = VALUES[*v].into();
                Outcome::Done
            }
            Op::Edit(e, v) => {
                self.disk[*e] = VALUES[*v].into();
                Outcome::Done
            }
            Op::Hit(_) => {
                self.hits += 1;
                Outcome::Done
            }
            Op::Render => {
                let files = self.files();
                let refused = files.iter().any(|f| {
                    self.disk_of(f) != self.store_of(f) && self.disk_of(f) != self.file_mark[f]
                });
                if refused {
                    return Outcome::EditedOnDisk;
                }
                for f in files {
                    for e in Model::in_file(f) {
                        self.disk[e] = self.store[e].clone();
                        self.mark[e] = self.store[e].clone();
                    }
                    let now = self.disk_of(f);
                    self.file_mark.insert(f, now);
                }
                Outcome::Done
            }
            Op::Import(prefer) => {
                let mut next = self.clone();
                let mut resolved = Vec::new();
                for f in self.files() {
                    if self.disk_of(f) == self.file_mark[f] {
                        continue;
                    }
                    for e in Model::in_file(f) {
                        let (disk, store, mark) = (&self.disk[e], &self.store[e], &self.mark[e]);
                        if disk != store && disk != mark {
                            if store == mark {
                                next.store[e] = disk.clone();
                            } else {
                                match prefer {
                                    Some(Prefer::File) => next.store[e] = disk.clone(),
                                    Some(Prefer::Store) => {}
                                    None => return Outcome::Conflict,
                                }
                                resolved.push(e);
                            }
                        }
                        next.mark[e] = disk.clone();
                    }
                    let now = self.disk_of(f);
                    next.file_mark.insert(f, now);
                }
                for e in resolved {
                    next.index[e] = next.store[e].clone();
                }
                *self = next;
                Outcome::Done
            }
        }
    }
}

/// The byte range of the value of `id`'s `status:` line in a topic file's text.
fn status_span(text: &str, id: &str) -> std::ops::Range<usize> {
    let at = text.find(&format!("\nid: {id}\n")).expect("the entry is in its file");
    let rel = text[at..].find("\nstatus: ").expect("the entry has a status line");
    let start = at + rel + "\nstatus: ".len();
    let end = start + text[start..].find('\n').expect("the line ends");
    start..end
}

fn disk_status(root: &Path, e: usize) -> String {
    let text = std::fs::read_to_string(root.join(topic(ENTRIES[e].1))).expect("read topic");
    text[status_span(&text, ENTRIES[e].0)].to_string()
}

fn edit_disk(root: &Path, e: usize, value: &str) {
    let path = root.join(topic(ENTRIES[e].1));
    let mut text = std::fs::read_to_string(&path).expect("read topic");
    let span = status_span(&text, ENTRIES[e].0);
    text.replace_range(span, value);
    std::fs::write(&path, text).expect("write topic");
}

fn status_of(store: &Store, kind: Kind, id: &str) -> String {
    let rec = store.read().expect("read").record_by_id(kind, id).expect("lookup").expect("exists");
    rec.field("status").expect("status").trim().to_string()
}

fn run_real(root: &Path, store: &Store, op: &Op, n: usize) -> Outcome {
    match op {
        Op::Set(e, v) => {
            mutate::set_field(store, ENTRIES[*e].0, Some(Kind::Entry), "status", VALUES[*v])
                .expect("set is acknowledged");
            Outcome::Done
        }
        Op::Edit(e, v) => {
            edit_disk(root, *e, VALUES[*v]);
            Outcome::Done
        }
        Op::Hit(e) => {
            let ts = format!("2026-11-30T00:00:{:02}Z", n % 60);
            hits::record_hit(
                root,
                store,
                &ts,
                "model",
                &[ENTRIES[*e].0.to_string()],
                Some("model-task"),
            )
            .expect("hit recorded");
            Outcome::Done
        }
        Op::Render => match evokb_evolve::render::render_in_place(root, store, false) {
            Ok(_) => Outcome::Done,
            Err(RenderError::EditedOnDisk { .. }) => Outcome::EditedOnDisk,
            Err(e) => panic!("render failed: {e}"),
        },
        Op::Import(prefer) => {
            match evokb_export::import(
                root,
                store,
                ImportOptions { prefer: *prefer, strict: false },
            ) {
                Ok(_) => Outcome::Done,
                Err(ImportError::Conflicts { .. }) => Outcome::Conflict,
                Err(e) => panic!("import failed: {e}"),
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, max_shrink_iters: 200, ..ProptestConfig::default() })]

    #[test]
    fn random_interleavings_follow_the_sequential_model(ops in proptest::collection::vec(op(), 1..28)) {
        let (kb, store) = imported_sample();
        let root = kb.path();
        let log = root.join(evokb_export::layout::defaults::SEARCH_LOG);
        let events_at_start = std::fs::read_to_string(&log).expect("log").lines().count();
        let mut model = Model::new();
        for (n, op) in ops.iter().enumerate() {
            let want = model.step(op);
            let got = run_real(root, &store, op, n);
            prop_assert_eq!(got, want, "step {} ({:?}) of {:?}", n, op, ops);
            for (e, (id, _)) in ENTRIES.iter().enumerate() {
                prop_assert_eq!(&status_of(&store, Kind::Entry, id), &model.store[e], "store, {} after step {}", id, n);
                prop_assert_eq!(&status_of(&store, Kind::IndexRow, id), &model.index[e], "INDEX row, {} after step {}", id, n);
                prop_assert_eq!(&disk_status(root, e), &model.disk[e], "disk, {} after step {}", id, n);
            }
        }
        let events = store.read().expect("read").records().expect("records")
            .into_iter().filter(|r| r.kind == Kind::SearchEvent).count();
        prop_assert_eq!(events, events_at_start + model.hits);
        prop_assert!(evokb_export::verify(&store).expect("verify").problems.is_empty());
    }
}
