//! Programs that transform text the model can follow: `echo`, `printf`, decoders
//! (`base64 -d`, `xxd -r`, `rev`, rot13) and archivers, whose output holds what they read.

use super::*;

pub(crate) fn echo(args: &[Value]) -> Value {
    let mut out = Value::default();
    let escapes = args
        .first()
        .is_some_and(|a| a.text.starts_with('-') && a.text.contains('e'));
    for (i, arg) in args
        .iter()
        .skip_while(|a| a.text.starts_with('-') && a.text.len() <= 3)
        .enumerate()
    {
        if i > 0 {
            out.text.push(' ');
        }
        if escapes {
            out.push_text(&decode_escapes(&arg.text));
            out.taint.join(&arg.taint);
        } else {
            out.push(arg);
        }
    }
    out.text.push('\n');
    out
}

pub(crate) fn printf(args: &[Value]) -> Value {
    let args: Vec<&Value> = args.iter().skip_while(|a| a.text == "--").collect();
    let Some(format) = args.first() else {
        return Value::default();
    };
    let mut out = Value::default();
    out.taint.join(&format.taint);
    let decoded = decode_escapes(&format.text);
    let mut rest = args[1..].iter().peekable();
    // The format is applied again while arguments remain, as printf does.
    loop {
        let mut consumed = false;
        let mut chars = decoded.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.text.push(c);
                continue;
            }
            match chars.next() {
                Some('%') => out.text.push('%'),
                Some(_) => {
                    if let Some(arg) = rest.next() {
                        out.push_text(&decode_escapes(&arg.text));
                        out.taint.join(&arg.taint);
                        consumed = true;
                    }
                }
                None => out.text.push('%'),
            }
        }
        if !consumed || rest.peek().is_none() || out.text.len() >= super::super::flow::MAX_VALUE {
            break;
        }
    }
    out
}

/// What a filter reads: its file arguments, or else its standard input.
pub(crate) fn input_of(m: &Machine, args: &[Value], stdin: &Value, line: usize) -> Value {
    let files: Vec<&Value> = args.iter().filter(|a| !a.text.starts_with('-')).collect();
    if files.is_empty() {
        return stdin.clone();
    }
    let mut out = Value::default();
    for f in files {
        out.push(&m.read_file(&f.text, line));
    }
    out
}

pub(crate) fn decode_base64(text: &str) -> Option<String> {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let engines = [
        base64::engine::general_purpose::STANDARD,
        base64::engine::general_purpose::STANDARD_NO_PAD,
        base64::engine::general_purpose::URL_SAFE,
    ];
    engines
        .iter()
        .find_map(|e| {
            e.decode(compact.trim_end_matches('='))
                .ok()
                .or_else(|| e.decode(&compact).ok())
        })
        .and_then(|bytes| String::from_utf8(bytes).ok())
}

pub(crate) fn decode_hex(text: &str) -> Option<String> {
    let digits: Vec<u8> = text.bytes().filter(u8::is_ascii_hexdigit).collect();
    let bytes: Option<Vec<u8>> = digits
        .chunks(2)
        .map(|pair| {
            std::str::from_utf8(pair)
                .ok()
                .and_then(|s| u8::from_str_radix(s, 16).ok())
        })
        .collect();
    bytes.and_then(|b| String::from_utf8(b).ok())
}

pub(crate) fn rot13(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            'a'..='z' => (((c as u8 - b'a') + 13) % 26 + b'a') as char,
            'A'..='Z' => (((c as u8 - b'A') + 13) % 26 + b'A') as char,
            _ => c,
        })
        .collect()
}

/// Archivers and encoders: their output holds what they read.
pub(crate) fn archive(m: &mut Machine, name: &str, args: &[Value], stdin: &Value, line: usize) -> Value {
    let texts: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
    let mut content = Value::default();
    content.taint.join(&stdin.taint);
    let mut output: Option<String> = None;
    let mut i = 0;
    while i < texts.len() {
        let t = texts[i];
        if matches!(t, "-f" | "--file" | "-o" | "--output" | "-out") && i + 1 < texts.len() {
            output = Some(texts[i + 1].to_owned());
            i += 2;
            continue;
        }
        if name == "tar" && i == 0 && !t.starts_with('-') && t.contains('f') && texts.len() > 1 {
            output = Some(texts[1].to_owned());
            i += 2;
            continue;
        }
        if name == "tar" && t.starts_with('-') && !t.starts_with("--") && t.ends_with('f') && i + 1 < texts.len() {
            output = Some(texts[i + 1].to_owned());
            i += 2;
            continue;
        }
        if !t.starts_with('-') {
            if name == "zip" && output.is_none() {
                output = Some(t.to_owned());
            } else {
                content.taint.join(&m.read_file(t, line).taint);
                content.taint.join(&args[i].taint);
            }
        }
        i += 1;
    }
    match output.filter(|o| o != "-") {
        Some(path) => {
            write(m, &path, content, false, line);
            Value::default()
        }
        None => content,
    }
}
