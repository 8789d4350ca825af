//! Every view, in one list: what each surface offers and in which order.

use super::AnyView;
use crate::contract::Surface;

/// The views, in the order surfaces list them.
pub static VIEWS: &[&dyn AnyView] = &[
    &crate::outline::OutlineView,
    &crate::chunk::ChunkView,
    &crate::snapshot::SnapshotView,
    &crate::snapshot::FindView,
    &crate::markdown::MarkdownPage,
    &crate::cnt::CntView,
    &crate::links::LinksView,
];

/// The view `surface` calls `name`.
pub fn by_name(name: &str, surface: Surface) -> Option<&'static dyn AnyView> {
    VIEWS.iter().copied().find(|v| v.name().on(surface) == name)
}
