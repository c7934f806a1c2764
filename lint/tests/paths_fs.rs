//! The file-system branch of `KB-SEC-PATH`: symlinks that lead out of the repository, and
//! `..` traversal resolved from the entry's directory inside a real root.

#![cfg(unix)]

use std::path::PathBuf;

use evokb_lint::check_paths;

struct TempTree(PathBuf);

impl Drop for TempTree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp_tree(tag: &str) -> TempTree {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!("evokb-lint-{tag}-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    TempTree(dir)
}

#[test]
fn symlink_out_of_the_tree_is_flagged() {
    let tree = temp_tree("symlink");
    let repo = tree.0.join("repo");
    let outside = tree.0.join("outside");
    std::fs::create_dir_all(repo.join("docs/pl")).expect("mkdir");
    std::fs::create_dir_all(&outside).expect("mkdir");
    std::fs::write(outside.join("secret.md"), "x").expect("write");
    std::fs::write(repo.join("docs/real.md"), "x").expect("write");
    std::os::unix::fs::symlink(&outside, repo.join("docs/escape")).expect("symlink");
    std::os::unix::fs::symlink(repo.join("docs/real.md"), repo.join("docs/inside.md"))
        .expect("symlink");
    std::os::unix::fs::symlink("/nonexistent/target", repo.join("docs/dangling")).expect("symlink");

    let dir = Some(std::path::Path::new("docs/pl"));
    let f = check_paths("see docs/escape/secret.md", Some(&repo), dir);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].message.contains("symlink"), "{}", f[0].message);

    // Relative to the entry's directory, and through `..` that stays inside lexically.
    assert_eq!(check_paths("see ../escape", Some(&repo), dir).len(), 1);
    // A dangling link to an absolute target outside.
    assert_eq!(check_paths("docs/dangling", Some(&repo), dir).len(), 1);
    // Links that stay inside, plain files and missing paths are fine.
    assert!(check_paths("docs/inside.md docs/real.md docs/missing.md", Some(&repo), dir).is_empty());
    // `..` that climbs above the real root.
    let up = check_paths("../../../x.md", Some(&repo), dir);
    assert_eq!(up.len(), 1);
    assert!(up[0].message.contains("1 level"), "{}", up[0].message);
    // An absolute file_dir inside the root counts the same.
    assert!(check_paths("../../docs/real.md", Some(&repo), Some(&repo.join("docs/pl"))).is_empty());
}
