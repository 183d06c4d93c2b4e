//! LOLWUT [VERSION v]: the Redis version, with generative art for versions 5 and 6 drawn in Braille dots as lolwut.c's canvas does.
//!
//! For 7.2 itself (no VERSION, or one that is neither 5 nor 6) Redis
//! replies with the version line alone, and so do we. The art is our own
//! rendering of the same ideas (Georg Nees' *Schotter* for 5, a skyline
//! for 6), drawn with the server's seeded RNG so a run replays exactly.

use crate::cmd::args::arg_i64;
use crate::cmd::table::Ctx;
use crate::proto::resp::Frame;
use crate::rng::Pick;

/// A monochrome canvas, one bit per dot, printed 2×4 dots per Braille cell.
struct Canvas {
    width: usize,
    height: usize,
    dots: Vec<bool>,
}

impl Canvas {
    fn new(width: usize, height: usize) -> Canvas {
        Canvas {
            width,
            height,
            dots: vec![false; width * height],
        }
    }

    fn set(&mut self, x: i64, y: i64) {
        if x >= 0 && y >= 0 && (x as usize) < self.width && (y as usize) < self.height {
            self.dots[y as usize * self.width + x as usize] = true;
        }
    }

    /// A line from (x0, y0) to (x1, y1), Bresenham's way.
    fn line(&mut self, (mut x0, mut y0): (i64, i64), (x1, y1): (i64, i64)) {
        let (dx, dy) = ((x1 - x0).abs(), -(y1 - y0).abs());
        let (sx, sy) = (if x0 < x1 { 1 } else { -1 }, if y0 < y1 { 1 } else { -1 });
        let mut err = dx + dy;
        loop {
            self.set(x0, y0);
            if x0 == x1 && y0 == y1 {
                return;
            }
            let e2 = 2 * err;
            if e2 >= dy {
                err += dy;
                x0 += sx;
            }
            if e2 <= dx {
                err += dx;
                y0 += sy;
            }
        }
    }

    /// The canvas as lines of Braille characters (U+2800 plus the dot bits).
    fn render(&self) -> String {
        // Bit of each dot within a cell, by (x, y) offset.
        const BITS: [[u32; 4]; 2] = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]];
        let mut out = String::new();
        for cy in (0..self.height).step_by(4) {
            for cx in (0..self.width).step_by(2) {
                let mut code = 0x2800;
                for (dx, column) in BITS.iter().enumerate() {
                    for (dy, bit) in column.iter().enumerate() {
                        let (x, y) = (cx + dx, cy + dy);
                        if x < self.width && y < self.height && self.dots[y * self.width + x] {
                            code |= bit;
                        }
                    }
                }
                out.push(char::from_u32(code).unwrap_or(' '));
            }
            out.push('\n');
        }
        out
    }
}

/// *Schotter*: rows of squares that turn and drift more the lower they sit.
fn schotter(rng: &mut fastrand::Rng, cols: i64, per_row: i64, per_col: i64) -> Canvas {
    let width = (cols * 2) as usize;
    let side = (width as f64 / (per_row as f64 + 2.0)).max(1.0);
    let height = ((per_col as f64 + 2.0) * side) as usize;
    let mut c = Canvas::new(width, height);
    for row in 0..per_col {
        let disorder = row as f64 / per_col as f64;
        for col in 0..per_row {
            let cx = (col as f64 + 1.5) * side;
            let cy = (row as f64 + 1.5) * side;
            let angle = (rng.f64() * 2.0 - 1.0) * std::f64::consts::FRAC_PI_4 * disorder;
            let (dx, dy) = (
                (rng.f64() * 2.0 - 1.0) * side * disorder / 2.0,
                (rng.f64() * 2.0 - 1.0) * side * disorder / 2.0,
            );
            let corner = |k: usize| {
                let a =
                    angle + std::f64::consts::FRAC_PI_4 + k as f64 * std::f64::consts::FRAC_PI_2;
                let r = side / std::f64::consts::SQRT_2 / 1.1;
                (
                    (cx + dx + r * a.cos()) as i64,
                    (cy + dy + r * a.sin()) as i64,
                )
            };
            for k in 0..4 {
                c.line(corner(k), corner((k + 1) % 4));
            }
        }
    }
    c
}

/// A skyline: buildings of random heights with lit windows, on one street.
fn skyline(rng: &mut fastrand::Rng, cols: i64) -> Canvas {
    let width = (cols * 2) as usize;
    let height = 64;
    let mut c = Canvas::new(width, height);
    let mut x = 0;
    while x < width {
        let w = rng.pick(8..18).min(width - x);
        let top = rng.pick(12..height - 8);
        let (x0, x1) = (x as i64, (x + w - 1) as i64);
        c.line((x0, top as i64), (x1, top as i64));
        c.line((x0, top as i64), (x0, height as i64 - 1));
        c.line((x1, top as i64), (x1, height as i64 - 1));
        for wy in (top + 3..height - 2).step_by(4) {
            for wx in (x + 2..x + w.saturating_sub(2)).step_by(3) {
                if rng.bool() {
                    c.set(wx as i64, wy as i64);
                }
            }
        }
        x += w + rng.pick(0..3);
    }
    c
}

/// LOLWUT [VERSION v] [args...]: art for versions 5 and 6, otherwise the
/// version line alone (`lolwutUnstableCommand`).
pub(super) fn lolwut(ctx: &mut Ctx, args: &[Vec<u8>]) -> Frame {
    let mut version = None;
    let mut rest = &args[1..];
    if args.len() >= 3 && args[1].eq_ignore_ascii_case(b"version") {
        match arg_i64(&args[2]) {
            Ok(v) => version = Some(v as u32),
            Err(e) => return e,
        }
        rest = &args[3..];
    }
    let line = format!("Redis ver. {}\n", crate::REDIS_VERSION);
    // Optional numeric arguments, clamped as lolwut.c clamps them.
    let mut nums = [0i64; 3];
    for (i, a) in rest.iter().take(3).enumerate() {
        match arg_i64(a) {
            Ok(v) => nums[i] = v,
            Err(e) => return e,
        }
    }
    let given = rest.len().min(3);
    let arg = |i: usize, default: i64, max: i64| {
        if i < given {
            nums[i].clamp(1, max)
        } else {
            default
        }
    };
    let text = match version {
        Some(5) => {
            let art = schotter(
                &mut ctx.srv.rng,
                arg(0, 66, 1000),
                arg(1, 8, 200),
                arg(2, 12, 200),
            );
            format!(
                "{}\nGeorg Nees - schotter, plotter on paper, 1968. {line}",
                art.render()
            )
        }
        Some(6) => {
            let art = skyline(&mut ctx.srv.rng, arg(0, 80, 1000));
            format!(
                "{}\nDedicated to the 8 bit game developers of past and present.\n\
                 Original 8 bit image from Plaguemon by hikikomori. {line}",
                art.render()
            )
        }
        _ => line,
    };
    Frame::Verbatim(*b"txt", text.into_bytes())
}

#[cfg(test)]
mod tests {
    use crate::proto::resp::Frame;
    use crate::Engine;

    fn text(e: &mut Engine, c: u64, line: &str) -> String {
        match e.execute_line(c, line) {
            Frame::Verbatim(_, t) => String::from_utf8(t).expect("utf-8"),
            f => panic!("{line}: {f:?}"),
        }
    }

    #[test]
    fn versions_and_art() {
        let mut e = Engine::new(1);
        let c = e.connect("t");
        let want = format!("Redis ver. {}\n", crate::REDIS_VERSION);
        assert_eq!(text(&mut e, c, "LOLWUT"), want);
        assert_eq!(text(&mut e, c, "LOLWUT VERSION 7"), want);
        let art = text(&mut e, c, "LOLWUT VERSION 5 20 4 4");
        assert!(art.ends_with(&format!("schotter, plotter on paper, 1968. {want}")));
        // 20 columns of Braille cells per line, and some dots drawn.
        let first = art.lines().next().expect("a line");
        assert_eq!(first.chars().count(), 20);
        assert!(art
            .chars()
            .any(|ch| ('\u{2801}'..='\u{28ff}').contains(&ch)));
        let sky = text(&mut e, c, "LOLWUT VERSION 6");
        assert!(sky.contains("Plaguemon by hikikomori. Redis ver."));
        assert!(e.execute_line(c, "LOLWUT VERSION x").is_error());
        assert!(e.execute_line(c, "LOLWUT VERSION 5 nope").is_error());
        // Huge sizes are clamped, not allocated.
        let big = text(&mut e, c, "LOLWUT VERSION 5 99999999 1 1");
        assert_eq!(big.lines().next().expect("a line").chars().count(), 1000);
    }
}
