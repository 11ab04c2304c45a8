//! `cairn completions <shell>` prints a script that knows the commands; a shell nobody
//! supports is refused with the ones that are.

use std::process::Command;

#[test]
fn completion_scripts_name_the_commands_and_unknown_shells_are_refused() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = Command::new(env!("CARGO_BIN_EXE_cairn"))
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8(out.stdout).unwrap();
        for command in ["pull", "push", "status", "watch", "login"] {
            assert!(script.contains(command), "{shell} script lacks {command}");
        }
    }
    let out = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("possible values: bash"));
}
