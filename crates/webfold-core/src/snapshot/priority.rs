//! Which elements survive a cut: seed 001's role priorities, verbatim.
//!
//! Primary inputs score highest, then form controls, then navigation widgets,
//! then containers; an element in the viewport gets +50, any other role 50.
//! Ties keep document order (the sort is stable over document order).

/// Seed 001's `ROLE_PRIORITIES`, in the seed's order.
pub const ROLE_PRIORITIES: &[(&str, u32)] = &[
    // Primary inputs - highest priority
    ("button", 100),
    ("textbox", 95),
    ("searchbox", 95),
    // Form controls
    ("checkbox", 90),
    ("radio", 90),
    ("switch", 90),
    ("combobox", 85),
    ("listbox", 85),
    ("slider", 85),
    ("spinbutton", 85),
    // Navigation
    ("link", 80),
    ("tab", 75),
    ("menuitem", 70),
    ("menuitemcheckbox", 70),
    ("menuitemradio", 70),
    ("option", 70),
    // Containers (lower priority - often redundant)
    ("navigation", 60),
    ("menu", 60),
    ("tablist", 55),
    ("form", 50),
    ("dialog", 50),
    ("alertdialog", 50),
];

/// Bonus for an element inside the viewport.
pub const VIEWPORT_BONUS: u32 = 50;

/// Priority of a role the table does not list.
pub const DEFAULT_PRIORITY: u32 = 50;

/// Seed 001's `getElementPriority`.
pub fn element_priority(role: &str, in_viewport: bool) -> u32 {
    let base = ROLE_PRIORITIES
        .iter()
        .find(|(r, _)| *r == role)
        .map_or(DEFAULT_PRIORITY, |&(_, p)| p);
    if in_viewport {
        base + VIEWPORT_BONUS
    } else {
        base
    }
}

/// Roles an agent acts on: the table's input, form-control and navigation
/// groups (everything above the containers). With `interactive_only`, these
/// are the elements a snapshot counts and keeps; containers and text appear
/// only as the ancestors that keep the YAML a tree.
pub fn is_interactive_role(role: &str) -> bool {
    ROLE_PRIORITIES
        .iter()
        .take_while(|(r, _)| *r != "navigation")
        .any(|(r, _)| *r == role)
}

/// Indices of `items` sorted by descending priority; equal priorities keep
/// their input (document) order.
pub fn order_by_priority(priorities: &[u32]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..priorities.len()).collect();
    order.sort_by(|&a, &b| priorities[b].cmp(&priorities[a]));
    order
}
