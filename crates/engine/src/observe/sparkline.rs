//! The ASCII chart LATENCY GRAPH prints: samples as filled columns four rows high, each labelled underneath (vertically) with how long ago it happened.

/// Fill characters from the lowest to the highest step within a row.
const FILL: [u8; 3] = [b'_', b'o', b'#'];
/// Rows of chart per band of samples.
const ROWS: usize = 4;
/// Columns per band (`LATENCY_GRAPH_COLS`).
pub const COLUMNS: usize = 80;

/// Renders `samples` (value, label) as bands of at most [`COLUMNS`]
/// columns, each band followed by its labels written top to bottom.
pub fn render(samples: &[(u64, String)]) -> String {
    let mut out = String::new();
    let (min, max) = samples
        .iter()
        .fold((u64::MAX, 0), |(lo, hi), (v, _)| (lo.min(*v), hi.max(*v)));
    for (i, band) in samples.chunks(COLUMNS).enumerate() {
        if i > 0 {
            out.push('\n');
        }
        render_band(&mut out, band, min, max);
    }
    out
}

fn render_band(out: &mut String, band: &[(u64, String)], min: u64, max: u64) {
    let steps = FILL.len() * ROWS;
    let range = (max - min).max(1) as f64;
    let step_of = |v: u64| (((v - min) as f64 * steps as f64 / range) as usize).min(steps - 1);
    for row in 0..ROWS {
        let line: String = band
            .iter()
            .map(|(v, _)| {
                // The step within this row: rows are filled bottom up.
                let idx = step_of(*v) as i64 - ((ROWS - row - 1) * FILL.len()) as i64;
                match idx {
                    i if i < 0 => ' ',
                    i if (i as usize) < FILL.len() => FILL[i as usize] as char,
                    _ => '|',
                }
            })
            .collect();
        out.push_str(&line);
        out.push('\n');
    }
    // One blank line, then the labels, one character per row.
    let tallest = band.iter().map(|(_, l)| l.len()).max().unwrap_or(0);
    if tallest > 0 {
        out.push_str(&" ".repeat(band.len()));
        out.push('\n');
    }
    for r in 0..tallest {
        let line: String = band
            .iter()
            .map(|(_, l)| l.as_bytes().get(r).map_or(' ', |&b| b as char))
            .collect();
        out.push_str(&line);
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn highest_sample_fills_the_column() {
        let g = render(&[(300, "3s".into()), (500, "1s".into())]);
        let lines: Vec<&str> = g.lines().collect();
        // Four chart rows, a blank one, two label rows.
        assert_eq!(lines.len(), 7);
        assert_eq!(lines[0], " #");
        assert_eq!(lines[3], "_|");
        assert_eq!(lines[5], "31");
        assert_eq!(lines[6], "ss");
    }
}
