//! GFM tables.
//!
//! A table becomes a GFM table when it is tabular data: at least two columns,
//! no nested table, and no cell holding headings, code blocks, quotes or rules.
//! Anything else is page layout and is converted as ordinary blocks (as turndown
//! does without its GFM plugin), since a GFM cell holds one line. The first row
//! is the header (GFM needs one). `colspan` repeats empty cells after the cell
//! and `rowspan` leaves empty cells below it, so every row keeps its columns
//! aligned; `|` in cells is escaped, line breaks become spaces.

use crate::page::tags::is_heading;
use crate::page::{ElementData, NodeData, NodeId};

use super::prepass::DROPPED;
use super::walk::{Frame, Kind, Writer};

const MAX_COLSPAN: usize = 64;
const MAX_ROWSPAN: usize = 1000;
const MAX_COLUMNS: usize = 128;

/// Which columns earlier rows' `rowspan` still occupy, and the current column.
#[derive(Default)]
pub(super) struct Grid {
    spans: Vec<u16>,
    col: usize,
    pub rows: usize,
    pub columns: usize,
    pub table: u32,
    /// Whether a cell of the current row has content.
    filled: bool,
}

impl Grid {
    fn start_row(&mut self) {
        self.col = 0;
        self.filled = false;
    }

    /// Steps over columns taken by a cell above; how many.
    fn skip_occupied(&mut self) -> usize {
        let mut n = 0;
        while self.col < self.spans.len() && self.spans[self.col] > 0 {
            self.spans[self.col] -= 1;
            self.col += 1;
            n += 1;
        }
        n
    }

    fn place(&mut self, colspan: usize, rowspan: usize) {
        let end = (self.col + colspan).min(MAX_COLUMNS);
        if self.spans.len() < end {
            self.spans.resize(end, 0);
        }
        for c in self.col..end {
            self.spans[c] = (rowspan - 1) as u16;
        }
        self.col += colspan;
    }

    /// Ends a row; its width, counting columns taken from above.
    fn end_row(&mut self) -> usize {
        let mut width = self.col;
        for c in self.col..self.spans.len() {
            if self.spans[c] > 0 {
                self.spans[c] -= 1;
                width = c + 1;
            }
        }
        width
    }
}

fn spans(e: &ElementData) -> (usize, usize) {
    let num = |name: &str| e.attr(name).and_then(|v| v.trim().parse::<usize>().ok());
    let colspan = num("colspan").unwrap_or(1).clamp(1, MAX_COLSPAN);
    let rowspan = num("rowspan").unwrap_or(1).clamp(1, MAX_ROWSPAN);
    (colspan, rowspan)
}

impl<'a> Writer<'a> {
    /// The number of columns if `table` is a data table, `None` for layout.
    fn data_table_columns(&self, table: NodeId) -> Option<usize> {
        let page = self.page;
        let e = page.element(table)?;
        if matches!(e.attr("role"), Some("presentation" | "none")) {
            return None;
        }
        let end = page.node(table).subtree_end.get();
        let mut grid = Grid::default();
        let (mut rows, mut width, mut in_row) = (0, 0, false);
        let mut j = table.get() + 1;
        while j < end {
            let n = NodeId::new(j);
            if self.pre.has(n, DROPPED) {
                j = page.node(n).subtree_end.get();
                continue;
            }
            j += 1;
            let NodeData::Element(e) = &page.node(n).data else {
                continue;
            };
            match e.local_name() {
                "table" | "pre" | "hr" | "blockquote" => return None,
                t if is_heading(t) => return None,
                "tr" => {
                    if in_row {
                        width = width.max(grid.end_row());
                    }
                    grid.start_row();
                    in_row = true;
                    rows += 1;
                }
                "td" | "th" if in_row => {
                    grid.skip_occupied();
                    let (c, r) = spans(e);
                    grid.place(c, r);
                }
                _ => {}
            }
        }
        if in_row {
            width = width.max(grid.end_row());
        }
        (rows > 0 && width >= 2).then_some(width.min(MAX_COLUMNS))
    }

    fn in_gfm_table(&self, parent_kinds: &[fn(&Kind<'_>) -> bool]) -> bool {
        let Some(top) = self.stack.last() else {
            return false;
        };
        !self.tables.is_empty() && parent_kinds.iter().any(|k| k(&top.kind))
    }

    fn has_kept_cell(&self, row: NodeId) -> bool {
        self.page
            .children(row)
            .any(|c| !self.pre.gone(c) && matches!(self.page.tag(c), Some("td" | "th")))
    }

    /// Table structure inside a GFM table; `Some(next id)` when handled here.
    pub(super) fn table_element(
        &mut self,
        id: NodeId,
        e: &'a ElementData,
        tag: &str,
    ) -> Option<u32> {
        let children = id.get() + 1;
        let is_table = |k: &Kind<'_>| matches!(k, Kind::Table);
        let is_section = |k: &Kind<'_>| matches!(k, Kind::Plain);
        let is_row = |k: &Kind<'_>| matches!(k, Kind::Row);
        match tag {
            "table" => {
                let columns = self.data_table_columns(id)?;
                self.join(2);
                let start = self.out.len();
                self.push(id, Kind::Table, start, start);
                self.tables.push(Grid {
                    columns,
                    table: id.get(),
                    ..Grid::default()
                });
                Some(children)
            }
            "thead" | "tbody" | "tfoot" if self.in_gfm_table(&[is_table]) => {
                let start = self.out.len();
                self.push(id, Kind::Plain, start, start);
                Some(children)
            }
            "caption" if self.in_gfm_table(&[is_table]) => {
                self.join(2);
                let start = self.out.len();
                self.push(id, Kind::Block, start, start);
                Some(children)
            }
            "tr" if self.in_gfm_table(&[is_table, is_section])
                && self.nearest_table_is_current(id) =>
            {
                if !self.has_kept_cell(id) {
                    return Some(self.page.node(id).subtree_end.get());
                }
                self.join(1);
                let start = self.out.len();
                self.emit("|");
                self.push(id, Kind::Row, start, start);
                if let Some(grid) = self.tables.last_mut() {
                    grid.start_row();
                }
                Some(children)
            }
            "td" | "th" if self.in_gfm_table(&[is_row]) => {
                let occupied = self.tables.last_mut().map_or(0, Grid::skip_occupied);
                for _ in 0..occupied {
                    self.out.push_str(" |");
                }
                let (colspan, rowspan) = spans(e);
                let start = self.out.len();
                self.out.push(' ');
                self.push(id, Kind::Cell { colspan, rowspan }, start, start);
                self.barrier(Some(true));
                self.flat_depth += 1;
                Some(children)
            }
            _ => None,
        }
    }

    fn nearest_table_is_current(&self, row: NodeId) -> bool {
        let current = self.tables.last().map(|g| g.table);
        self.page
            .ancestors(row)
            .find(|&a| self.page.tag(a) == Some("table"))
            .is_some_and(|t| Some(t.get()) == current)
    }

    pub(super) fn row_exit(&mut self, frame: &Frame<'a>) {
        let Some(grid) = self.tables.last_mut() else {
            return;
        };
        let remaining = grid.columns.saturating_sub(grid.col);
        grid.end_row();
        if !grid.filled {
            // A row of empty cells (spacer rows) carries nothing; the next row
            // with content becomes the header if this was the first.
            self.cut(frame.start);
            return;
        }
        let first = grid.rows == 0;
        grid.rows += 1;
        let columns = grid.columns;
        for _ in 0..remaining {
            self.out.push_str(" |");
        }
        if first {
            self.out.push_str("\n|");
            for _ in 0..columns {
                self.out.push_str(" --- |");
            }
        }
    }

    pub(super) fn cell_exit(&mut self, frame: &Frame<'a>, colspan: usize, rowspan: usize) {
        self.flat_depth -= 1;
        let content = frame.content.min(self.out.len());
        self.drop_final_break(content);
        self.flatten(content, true);
        let filled = self.out.len() > content;
        if !filled {
            self.cut(frame.start);
        }
        for _ in 0..colspan {
            self.out.push_str(" |");
        }
        if let Some(grid) = self.tables.last_mut() {
            grid.place(colspan, rowspan);
            grid.filled |= filled;
        }
    }
}
