//! Build script of the `evokb` binary: links it as a position-dependent executable on
//! Linux with the GNU toolchain.
//!
//! Why: a position-independent `evokb` carries about 53,000 relative relocations (clap's,
//! tantivy's, rmcp's and our own tables of pointers), and the dynamic loader applies every one
//! on every start, writing into 800 KiB of `.data.rel.ro` and so copying each of its pages.
//! That was the largest single part of the time `evokb --version` takes, and every query,
//! `get` and `search` pays it. Linked at a fixed address the pointers are resolved by the
//! linker and the pages are read from the file only when touched. The price is that the
//! binary's own code and data are not moved by address-space randomisation (its libraries,
//! heap and stack still are), acceptable for a command-line tool that parses only its
//! knowledge base. Only the binary is linked so; the libraries, tests and examples are not.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
