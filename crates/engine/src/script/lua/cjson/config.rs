//! lua-cjson's settings (`json_config_t`) and the functions that read and change them (`cjson.encode_max_depth` & co.), with their argument checks and return values.

use super::super::auxlib::{check_num, check_str};
use super::super::value::{Native, Table, TableRef, Value, Vm, R};

/// The settings one `cjson` table's natives share. They live in a hidden
/// table (the natives' state holds only values), read into this struct
/// once per call.
pub struct Config {
    pub sparse_convert: bool,
    pub sparse_ratio: i64,
    pub sparse_safe: i64,
    pub encode_max_depth: i64,
    pub decode_max_depth: i64,
    /// 0 off (an error), 1 on (`nan`, `inf`), 2 `null`.
    pub encode_invalid: i64,
    pub decode_invalid: bool,
    pub precision: i64,
}

/// Field names in the hidden table, with lua-cjson 2.1.0's defaults.
const DEFAULTS: [(&str, f64); 9] = [
    ("sparse_convert", 0.0),
    ("sparse_ratio", 2.0),
    ("sparse_safe", 10.0),
    ("encode_max_depth", 1000.0),
    ("decode_max_depth", 1000.0),
    ("encode_invalid", 0.0),
    ("decode_invalid", 1.0),
    ("keep_buffer", 1.0),
    ("precision", 14.0),
];

pub fn defaults() -> Table {
    let mut t = Table::new();
    for (k, v) in DEFAULTS {
        t.set_str(k, Value::Num(v));
    }
    t
}

fn table(me: &Native) -> TableRef {
    match me.state.borrow().get(1) {
        Some(Value::Table(t)) => t.clone(),
        _ => unreachable!("cjson natives are built with their settings"),
    }
}

fn get(t: &TableRef, k: &str) -> i64 {
    t.borrow().get_str(k).to_num().unwrap_or_default() as i64
}

impl Config {
    pub fn of(me: &Native) -> Config {
        let t = table(me);
        Config {
            sparse_convert: get(&t, "sparse_convert") != 0,
            sparse_ratio: get(&t, "sparse_ratio"),
            sparse_safe: get(&t, "sparse_safe"),
            encode_max_depth: get(&t, "encode_max_depth"),
            decode_max_depth: get(&t, "decode_max_depth"),
            encode_invalid: get(&t, "encode_invalid"),
            decode_invalid: get(&t, "decode_invalid") != 0,
            precision: get(&t, "precision"),
        }
    }
}

/// `json_arg_init`: at most `n` arguments.
fn arg_init(it: &dyn Vm, args: &[Value], n: usize) -> R<()> {
    if args.len() > n {
        return Err(it.arg_error(n + 1, "found too many arguments"));
    }
    Ok(())
}

/// `json_integer_option`: argument `i` (unless nil) must be an integer in
/// `min..=max`; returns the setting.
fn integer_option(
    it: &dyn Vm,
    args: &[Value],
    i: usize,
    me: &Native,
    field: &str,
    (min, max): (i64, i64),
) -> R<Value> {
    let t = table(me);
    if !args.get(i - 1).is_none_or(Value::is_nil) {
        // `luaL_checkinteger`: truncated toward zero.
        let v = check_num(it, args, i)? as i64;
        if v < min || v > max {
            return Err(it.arg_error(1, &format!("expected integer between {min} and {max}")));
        }
        t.borrow_mut().set_str(field, Value::Num(v as f64));
    }
    Ok(Value::Num(get(&t, field) as f64))
}

/// `json_enum_option` with `bool_true` 1: a boolean or one of `options`
/// (indexed from 0) sets it; returns a boolean for 0 and 1, else the name.
fn enum_option(
    it: &dyn Vm,
    args: &[Value],
    i: usize,
    me: &Native,
    field: &str,
    options: &[&str],
) -> R<Value> {
    let t = table(me);
    match args.get(i - 1) {
        None | Some(Value::Nil) => {}
        Some(Value::Bool(b)) => t.borrow_mut().set_str(field, Value::Num(*b as u8 as f64)),
        Some(_) => {
            let name = check_str(it, args, i)?;
            let Some(n) = options.iter().position(|o| o.as_bytes() == &name[..]) else {
                return Err(it.arg_error(
                    i,
                    &format!("invalid option '{}'", String::from_utf8_lossy(&name)),
                ));
            };
            t.borrow_mut().set_str(field, Value::Num(n as f64));
        }
    }
    let n = get(&t, field);
    Ok(match n {
        0 | 1 => Value::Bool(n == 1),
        _ => Value::str(options[n as usize]),
    })
}

const ON_OFF: &[&str] = &["off", "on"];
const MAX: i64 = i32::MAX as i64;

pub fn encode_sparse_array(it: &mut dyn Vm, args: Vec<Value>, me: &Native) -> R<Vec<Value>> {
    arg_init(it, &args, 3)?;
    Ok(vec![
        enum_option(it, &args, 1, me, "sparse_convert", ON_OFF)?,
        integer_option(it, &args, 2, me, "sparse_ratio", (0, MAX))?,
        integer_option(it, &args, 3, me, "sparse_safe", (0, MAX))?,
    ])
}

pub fn encode_max_depth(it: &mut dyn Vm, args: Vec<Value>, me: &Native) -> R<Vec<Value>> {
    arg_init(it, &args, 1)?;
    Ok(vec![integer_option(
        it,
        &args,
        1,
        me,
        "encode_max_depth",
        (1, MAX),
    )?])
}

pub fn decode_max_depth(it: &mut dyn Vm, args: Vec<Value>, me: &Native) -> R<Vec<Value>> {
    arg_init(it, &args, 1)?;
    Ok(vec![integer_option(
        it,
        &args,
        1,
        me,
        "decode_max_depth",
        (1, MAX),
    )?])
}

pub fn encode_number_precision(it: &mut dyn Vm, args: Vec<Value>, me: &Native) -> R<Vec<Value>> {
    arg_init(it, &args, 1)?;
    Ok(vec![integer_option(
        it,
        &args,
        1,
        me,
        "precision",
        (1, 14),
    )?])
}

/// `encode_keep_buffer` only decides whether lua-cjson reuses its output
/// buffer between calls; what `encode` returns is the same either way.
pub fn encode_keep_buffer(it: &mut dyn Vm, args: Vec<Value>, me: &Native) -> R<Vec<Value>> {
    arg_init(it, &args, 1)?;
    Ok(vec![enum_option(it, &args, 1, me, "keep_buffer", ON_OFF)?])
}

pub fn encode_invalid_numbers(it: &mut dyn Vm, args: Vec<Value>, me: &Native) -> R<Vec<Value>> {
    arg_init(it, &args, 1)?;
    let options = &["off", "on", "null"];
    Ok(vec![enum_option(
        it,
        &args,
        1,
        me,
        "encode_invalid",
        options,
    )?])
}

pub fn decode_invalid_numbers(it: &mut dyn Vm, args: Vec<Value>, me: &Native) -> R<Vec<Value>> {
    arg_init(it, &args, 1)?;
    Ok(vec![enum_option(
        it,
        &args,
        1,
        me,
        "decode_invalid",
        ON_OFF,
    )?])
}
