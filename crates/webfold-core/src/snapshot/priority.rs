//! Which elements survive a cut: seed 001's role priorities, verbatim.
//!
//! Primary inputs score highest, then form controls, then navigation widgets,
//! then containers; an element in the viewport gets +50, any other role 50.
//! Ties keep document order (the sort is stable over document order).
//!
//! Elements in an open modal dialog rank over everything, and those in an
//! open popup over the rest of the page ([`front_priority`]).
//!
//! Interactive-only views also keep two kinds of context the seed's table
//! has no row for ([`context_priority`]): live regions, ranked above
//! everything, and headings, the top two levels between the form controls
//! and the links, the rest after every interactive element.

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

/// Added to a link that says what it is for (sign in, privacy, next page,
/// share…; see [`crate::purpose`]): over the other links (80) and the top
/// headings (82), under the form controls (85 and up).
pub const PURPOSE_BONUS: u32 = 4;

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

/// Roles whose content the page announces as it changes: what an action
/// just produced ("Order placed", "Card declined", a chat's new line).
pub const LIVE_REGION_ROLES: &[&str] = &["status", "alert", "log"];

/// Live regions outrank every element, viewport bonus included: an agent
/// that just acted reads the page's answer first. Their text is capped
/// (see [`budget`](super::budget)), so they cannot crowd out the controls.
pub const LIVE_REGION_PRIORITY: u32 = 1000;

/// `h1` and `h2`: the page's title and its sections, few and short, the
/// landmarks an agent orients by. Under the buttons, inputs and form
/// controls (85 and up) the budget exists for, over the links (80) that
/// fill most pages.
pub const TOP_HEADING_PRIORITY: u32 = 82;

/// `h3` to `h6`: card titles and sub-sections, sometimes hundreds of them;
/// they fill what budget every interactive element left (the seed's
/// default, 50, is the lowest interactive rank).
pub const HEADING_PRIORITY: u32 = 40;

pub fn is_live_region_role(role: &str) -> bool {
    LIVE_REGION_ROLES.contains(&role)
}

/// Roles an interactive-only view keeps besides the interactive ones.
pub fn is_context_role(role: &str) -> bool {
    role == "heading" || is_live_region_role(role)
}

/// The rank of a context element in an interactive-only view: `level` is a
/// heading's `[level=N]` (absent: treated as a top heading, as ARIA's
/// default level is 2).
pub fn context_priority(role: &str, level: Option<u32>, in_viewport: bool) -> u32 {
    if is_live_region_role(role) {
        return LIVE_REGION_PRIORITY;
    }
    let base = if level.unwrap_or(2) <= 2 {
        TOP_HEADING_PRIORITY
    } else {
        HEADING_PRIORITY
    };
    if in_viewport {
        base + VIEWPORT_BONUS
    } else {
        base
    }
}

/// Added to every element in the open modal dialog: the only part of the
/// page an agent can use until it closes ranks over everything, a task's
/// focus and live regions included.
pub const MODAL_PRIORITY: u32 = 1_000_000;

/// Added to every element in an open non-modal dialog or popover: over
/// every element of the page (150 at most, viewport bonus included), under
/// live regions, which say what an action just did.
pub const POPUP_PRIORITY: u32 = 500;

/// What being in front of the page adds to an element's rank.
pub fn front_priority(front: super::front::Front) -> u32 {
    match front {
        super::front::Front::Modal => MODAL_PRIORITY,
        super::front::Front::Popup => POPUP_PRIORITY,
        super::front::Front::None => 0,
    }
}

/// Indices of `items` sorted by descending priority; equal priorities keep
/// their input (document) order.
pub fn order_by_priority(priorities: &[u32]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..priorities.len()).collect();
    order.sort_by(|&a, &b| priorities[b].cmp(&priorities[a]));
    order
}
