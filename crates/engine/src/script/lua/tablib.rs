//! Lua 5.1's table library (ltablib.c): `concat`, `insert`, `remove`, `sort` (Lua's own quicksort, so ties and odd comparators order as in Redis), `maxn` and the 5.0 leftovers `getn`, `setn`, `foreach`, `foreachi`.

use super::auxlib::{
    absent, check_int, check_table, check_writable, new_lib, num, opt_int, opt_str, raw_set,
};
use super::value::{first, Native, Table, TableRef, Value, Vm, R};

/// The `table` table.
pub fn library() -> Table {
    new_lib(&[
        ("concat", concat),
        ("insert", insert),
        ("maxn", maxn),
        ("remove", remove),
        ("sort", sort),
        ("getn", getn),
        ("setn", setn),
        ("foreach", foreach),
        ("foreachi", foreachi),
    ])
}

fn concat(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let t = check_table(it, &args, 1)?;
    let sep = opt_str(it, &args, 2, b"")?;
    let i = opt_int(it, &args, 3, 1)?;
    let j = if absent(&args, 4) {
        t.borrow().border() as i64
    } else {
        check_int(it, &args, 4)?
    };
    let mut out = Vec::new();
    let mut k = i;
    while k <= j {
        let v = t.borrow().get(&Value::Num(k as f64));
        let Some(s) = (match &v {
            Value::Str(_) | Value::Num(_) => v.to_str(),
            _ => None,
        }) else {
            return Err(it.rt_error(&format!(
                "invalid value ({}) at index {k} in table for 'concat'",
                v.type_name()
            )));
        };
        it.burn((s.len() + sep.len()) as u64 / 64 + 1)?;
        out.extend_from_slice(&s);
        if k != j {
            out.extend_from_slice(&sep);
        }
        k += 1;
    }
    Ok(vec![Value::str(out)])
}

fn insert(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let t = check_table(it, &args, 1)?;
    let mut e = t.borrow().border() as i64 + 1;
    let (pos, v) = match args.len() {
        2 => (e, args[1].clone()),
        3 => {
            let pos = check_int(it, &args, 2)?;
            if pos > e {
                e = pos;
            }
            let mut i = e;
            while i > pos {
                it.burn(1)?;
                let prev = t.borrow().get(&Value::Num((i - 1) as f64));
                set_raw(it, &t, i, prev)?;
                i -= 1;
            }
            (pos, args[2].clone())
        }
        _ => return Err(it.rt_error("wrong number of arguments to 'insert'")),
    };
    set_raw(it, &t, pos, v)?;
    Ok(Vec::new())
}

fn set_raw(it: &dyn Vm, t: &TableRef, i: i64, v: Value) -> R<()> {
    raw_set(it, t, Value::Num(i as f64), v)
}

fn remove(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let t = check_table(it, &args, 1)?;
    let e = t.borrow().border() as i64;
    if e == 0 {
        return Ok(Vec::new());
    }
    let pos = opt_int(it, &args, 2, e)?;
    if !(1 <= pos && pos <= e) {
        return Ok(Vec::new());
    }
    let out = t.borrow().get(&Value::Num(pos as f64));
    for i in pos..e {
        it.burn(1)?;
        let next = t.borrow().get(&Value::Num((i + 1) as f64));
        set_raw(it, &t, i, next)?;
    }
    set_raw(it, &t, e, Value::Nil)?;
    Ok(vec![out])
}

fn maxn(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let t = check_table(it, &args, 1)?;
    let mut max = 0.0f64;
    for (k, _) in t.borrow().entries() {
        if let Value::Num(n) = k {
            if n > max {
                max = n;
            }
        }
    }
    Ok(num(max))
}

fn getn(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let t = check_table(it, &args, 1)?;
    let n = t.borrow().border();
    Ok(num(n as f64))
}

fn setn(it: &mut dyn Vm, _: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    Err(it.rt_error("'setn' is obsolete"))
}

fn foreach(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let t = check_table(it, &args, 1)?;
    let f = args.get(1).cloned().unwrap_or_default();
    let entries = t.borrow().entries();
    for (k, v) in entries {
        let r = first(it.call(&f, vec![k, v])?);
        if !r.is_nil() {
            return Ok(vec![r]);
        }
    }
    Ok(Vec::new())
}

fn foreachi(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let t = check_table(it, &args, 1)?;
    let f = args.get(1).cloned().unwrap_or_default();
    let n = t.borrow().border();
    for i in 1..=n {
        let v = t.borrow().get_int(i);
        let r = first(it.call(&f, vec![Value::Num(i as f64), v])?);
        if !r.is_nil() {
            return Ok(vec![r]);
        }
    }
    Ok(Vec::new())
}

/// `table.sort`: Lua 5.1's quicksort (median of three, smaller half
/// first), so ties and inconsistent comparators behave as in Redis.
fn sort(it: &mut dyn Vm, args: Vec<Value>, _: &Native) -> R<Vec<Value>> {
    let t = check_table(it, &args, 1)?;
    let n = t.borrow().border();
    let comp = match args.get(1) {
        None | Some(Value::Nil) => None,
        Some(f @ Value::Func(_)) => Some(f.clone()),
        Some(v) => {
            return Err(it.arg_error(2, &format!("function expected, got {}", v.type_name())))
        }
    };
    let mut a: Vec<Value> = (1..=n).map(|i| t.borrow().get_int(i)).collect();
    let mut s = Sorter {
        it,
        comp,
        a: &mut a,
    };
    s.aux(1, n as i64)?;
    if n > 0 {
        check_writable(s.it, &t)?;
    }
    let mut tb = t.borrow_mut();
    for (i, v) in a.into_iter().enumerate() {
        tb.set_int(i + 1, v);
    }
    Ok(Vec::new())
}

struct Sorter<'a, 'b> {
    it: &'a mut dyn Vm,
    comp: Option<Value>,
    a: &'b mut Vec<Value>,
}

impl Sorter<'_, '_> {
    fn get(&self, i: i64) -> Value {
        if i >= 1 {
            self.a.get(i as usize - 1).cloned().unwrap_or_default()
        } else {
            Value::Nil
        }
    }

    fn swap(&mut self, i: i64, j: i64) {
        let n = self.a.len() as i64;
        if (1..=n).contains(&i) && (1..=n).contains(&j) {
            self.a.swap(i as usize - 1, j as usize - 1);
        }
    }

    fn lt(&mut self, x: &Value, y: &Value) -> R<bool> {
        self.it.burn(1)?;
        match (&self.comp, x, y) {
            (Some(f), ..) => Ok(first(self.it.call(f, vec![x.clone(), y.clone()])?).truthy()),
            // `less` for the common cases, without a call through `Vm`.
            (None, Value::Num(a), Value::Num(b)) => Ok(a < b),
            (None, Value::Str(a), Value::Str(b)) => Ok(a < b),
            (None, ..) => self.it.less(x, y, false),
        }
    }

    fn aux(&mut self, mut l: i64, mut u: i64) -> R<()> {
        while l < u {
            if self.lt(&self.get(u), &self.get(l))? {
                self.swap(l, u);
            }
            if u - l == 1 {
                break;
            }
            let mut i = (l + u) / 2;
            if self.lt(&self.get(i), &self.get(l))? {
                self.swap(i, l);
            } else if self.lt(&self.get(u), &self.get(i))? {
                self.swap(i, u);
            }
            if u - l == 2 {
                break;
            }
            let p = self.get(i);
            self.swap(i, u - 1);
            i = l;
            let mut j = u - 1;
            loop {
                loop {
                    i += 1;
                    if !self.lt(&self.get(i), &p)? {
                        break;
                    }
                    if i > u {
                        return Err(self.it.rt_error("invalid order function for sorting"));
                    }
                }
                loop {
                    j -= 1;
                    if !self.lt(&p, &self.get(j))? {
                        break;
                    }
                    if j < l {
                        return Err(self.it.rt_error("invalid order function for sorting"));
                    }
                }
                if j < i {
                    break;
                }
                self.swap(i, j);
            }
            self.swap(u - 1, i);
            let (lo, hi);
            if i - l < u - i {
                lo = l;
                hi = i - 1;
                l = i + 1;
            } else {
                lo = i + 1;
                hi = u;
                u = i - 1;
            }
            self.aux(lo, hi)?;
        }
        Ok(())
    }
}
