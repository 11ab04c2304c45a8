use std::process::Command;

#[test]
fn cli_help_fa() {
    let out = Command::new(env!("CARGO_BIN_EXE_mytool"))
        .arg("--help")
        .env("LANG", "fa_IR.UTF-8")
        .output()
        .expect("run mytool");
    let stdout = String::from_utf8(out.stdout).unwrap();
    insta::assert_snapshot!(stdout);
}

#[test]
fn saved_file_is_isolated() {
    let msg = mytool::i18n::tr_args("fa", "saved-file", &[("path", "out/report.csv")]);
    // Real FSI (U+2068) and PDI (U+2069) around the path.
    assert_eq!(msg, "فایل ⁨out/report.csv⁩ ذخیره شد.");
}
