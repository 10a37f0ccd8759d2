//! `include/aqmlab.h` is what cbindgen generates from the crate now. Run with
//! `AQMLAB_UPDATE_HEADER=1` to rewrite it after changing the C ABI.

use std::path::Path;

#[test]
fn header_is_generated_from_the_crate() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).unwrap();
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen reads the crate")
        .write(&mut generated);
    let path = crate_dir.join("include/aqmlab.h");
    if std::env::var_os("AQMLAB_UPDATE_HEADER").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/aqmlab.h is out of date: run AQMLAB_UPDATE_HEADER=1 cargo test -p aqmlab-capi \
         --test header"
    );
}
