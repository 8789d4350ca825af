//! SVG inside HTML: tags read while an SVG element is current, and the
//! standard's case fixes for SVG's names.

use html5ever::tokenizer::TagKind;
use html5ever::{LocalName, QualName, local_name, namespace_prefix, ns};

use super::names::svg_html_integration_point;
use super::{State, Step};
use crate::page::tokenize::RawTag;

impl State {
    /// A tag read while an SVG element is current: handled here, or handed
    /// back for the HTML rules.
    pub(super) fn foreign_tag(&mut self, mut tag: RawTag) -> Step<Option<RawTag>> {
        if tag.kind == TagKind::StartTag {
            if breaks_out_of_foreign(&tag) {
                self.pop_to_html()?;
                return Ok(Some(tag));
            }
            adjust_svg_tag_name(&mut tag);
            adjust_svg_attributes(&mut tag);
            adjust_foreign_attributes(&mut tag);
            let push = !tag.self_closing;
            self.insert(QualName::new(None, ns!(svg), tag.name), tag.attrs, push)?;
            return Ok(None);
        }
        if matches!(tag.name, local_name!("br") | local_name!("p")) {
            self.pop_to_html()?;
            return Ok(Some(tag));
        }
        let mut i = self.open.len() - 1;
        let mut first = true;
        loop {
            if i == 0 {
                return Ok(None);
            }
            let o = &self.open[i];
            if !first && !o.svg {
                return Ok(Some(tag));
            }
            if o.name.eq_ignore_ascii_case(&tag.name) {
                self.open.truncate(i);
                return Ok(None);
            }
            first = false;
            i -= 1;
        }
    }

    pub(super) fn pop_to_html(&mut self) -> Step {
        while self
            .open
            .last()
            .is_some_and(|o| o.svg && !svg_html_integration_point(&o.name))
        {
            self.pop()?;
        }
        Ok(())
    }
}

/// HTML start tags that end foreign content.
pub(super) fn breaks_out_of_foreign(tag: &RawTag) -> bool {
    match tag.name {
        local_name!("b")
        | local_name!("big")
        | local_name!("blockquote")
        | local_name!("body")
        | local_name!("br")
        | local_name!("center")
        | local_name!("code")
        | local_name!("dd")
        | local_name!("div")
        | local_name!("dl")
        | local_name!("dt")
        | local_name!("em")
        | local_name!("embed")
        | local_name!("h1")
        | local_name!("h2")
        | local_name!("h3")
        | local_name!("h4")
        | local_name!("h5")
        | local_name!("h6")
        | local_name!("head")
        | local_name!("hr")
        | local_name!("i")
        | local_name!("img")
        | local_name!("li")
        | local_name!("listing")
        | local_name!("menu")
        | local_name!("meta")
        | local_name!("nobr")
        | local_name!("ol")
        | local_name!("p")
        | local_name!("pre")
        | local_name!("ruby")
        | local_name!("s")
        | local_name!("small")
        | local_name!("span")
        | local_name!("strong")
        | local_name!("strike")
        | local_name!("sub")
        | local_name!("sup")
        | local_name!("table")
        | local_name!("tt")
        | local_name!("u")
        | local_name!("ul")
        | local_name!("var") => true,
        local_name!("font") => tag.attrs.iter().any(|a| {
            a.name.ns == ns!()
                && matches!(
                    a.name.local,
                    local_name!("color") | local_name!("face") | local_name!("size")
                )
        }),
        _ => false,
    }
}

pub(super) fn adjust_svg_tag_name(tag: &mut RawTag) {
    let name = match tag.name {
        local_name!("altglyph") => local_name!("altGlyph"),
        local_name!("altglyphdef") => local_name!("altGlyphDef"),
        local_name!("altglyphitem") => local_name!("altGlyphItem"),
        local_name!("animatecolor") => local_name!("animateColor"),
        local_name!("animatemotion") => local_name!("animateMotion"),
        local_name!("animatetransform") => local_name!("animateTransform"),
        local_name!("clippath") => local_name!("clipPath"),
        local_name!("feblend") => local_name!("feBlend"),
        local_name!("fecolormatrix") => local_name!("feColorMatrix"),
        local_name!("fecomponenttransfer") => local_name!("feComponentTransfer"),
        local_name!("fecomposite") => local_name!("feComposite"),
        local_name!("feconvolvematrix") => local_name!("feConvolveMatrix"),
        local_name!("fediffuselighting") => local_name!("feDiffuseLighting"),
        local_name!("fedisplacementmap") => local_name!("feDisplacementMap"),
        local_name!("fedistantlight") => local_name!("feDistantLight"),
        local_name!("fedropshadow") => local_name!("feDropShadow"),
        local_name!("feflood") => local_name!("feFlood"),
        local_name!("fefunca") => local_name!("feFuncA"),
        local_name!("fefuncb") => local_name!("feFuncB"),
        local_name!("fefuncg") => local_name!("feFuncG"),
        local_name!("fefuncr") => local_name!("feFuncR"),
        local_name!("fegaussianblur") => local_name!("feGaussianBlur"),
        local_name!("feimage") => local_name!("feImage"),
        local_name!("femerge") => local_name!("feMerge"),
        local_name!("femergenode") => local_name!("feMergeNode"),
        local_name!("femorphology") => local_name!("feMorphology"),
        local_name!("feoffset") => local_name!("feOffset"),
        local_name!("fepointlight") => local_name!("fePointLight"),
        local_name!("fespecularlighting") => local_name!("feSpecularLighting"),
        local_name!("fespotlight") => local_name!("feSpotLight"),
        local_name!("fetile") => local_name!("feTile"),
        local_name!("feturbulence") => local_name!("feTurbulence"),
        local_name!("foreignobject") => local_name!("foreignObject"),
        local_name!("glyphref") => local_name!("glyphRef"),
        local_name!("lineargradient") => local_name!("linearGradient"),
        local_name!("radialgradient") => local_name!("radialGradient"),
        local_name!("textpath") => local_name!("textPath"),
        _ => return,
    };
    tag.name = name;
}

pub(super) fn adjust_svg_attributes(tag: &mut RawTag) {
    for a in &mut tag.attrs {
        let local = match a.name.local {
            local_name!("attributename") => local_name!("attributeName"),
            local_name!("attributetype") => local_name!("attributeType"),
            local_name!("basefrequency") => local_name!("baseFrequency"),
            local_name!("baseprofile") => local_name!("baseProfile"),
            local_name!("calcmode") => local_name!("calcMode"),
            local_name!("clippathunits") => local_name!("clipPathUnits"),
            local_name!("diffuseconstant") => local_name!("diffuseConstant"),
            local_name!("edgemode") => local_name!("edgeMode"),
            local_name!("filterunits") => local_name!("filterUnits"),
            local_name!("glyphref") => local_name!("glyphRef"),
            local_name!("gradienttransform") => local_name!("gradientTransform"),
            local_name!("gradientunits") => local_name!("gradientUnits"),
            local_name!("kernelmatrix") => local_name!("kernelMatrix"),
            local_name!("kernelunitlength") => local_name!("kernelUnitLength"),
            local_name!("keypoints") => local_name!("keyPoints"),
            local_name!("keysplines") => local_name!("keySplines"),
            local_name!("keytimes") => local_name!("keyTimes"),
            local_name!("lengthadjust") => local_name!("lengthAdjust"),
            local_name!("limitingconeangle") => local_name!("limitingConeAngle"),
            local_name!("markerheight") => local_name!("markerHeight"),
            local_name!("markerunits") => local_name!("markerUnits"),
            local_name!("markerwidth") => local_name!("markerWidth"),
            local_name!("maskcontentunits") => local_name!("maskContentUnits"),
            local_name!("maskunits") => local_name!("maskUnits"),
            local_name!("numoctaves") => local_name!("numOctaves"),
            local_name!("pathlength") => local_name!("pathLength"),
            local_name!("patterncontentunits") => local_name!("patternContentUnits"),
            local_name!("patterntransform") => local_name!("patternTransform"),
            local_name!("patternunits") => local_name!("patternUnits"),
            local_name!("pointsatx") => local_name!("pointsAtX"),
            local_name!("pointsaty") => local_name!("pointsAtY"),
            local_name!("pointsatz") => local_name!("pointsAtZ"),
            local_name!("preservealpha") => local_name!("preserveAlpha"),
            local_name!("preserveaspectratio") => local_name!("preserveAspectRatio"),
            local_name!("primitiveunits") => local_name!("primitiveUnits"),
            local_name!("refx") => local_name!("refX"),
            local_name!("refy") => local_name!("refY"),
            local_name!("repeatcount") => local_name!("repeatCount"),
            local_name!("repeatdur") => local_name!("repeatDur"),
            local_name!("requiredextensions") => local_name!("requiredExtensions"),
            local_name!("requiredfeatures") => local_name!("requiredFeatures"),
            local_name!("specularconstant") => local_name!("specularConstant"),
            local_name!("specularexponent") => local_name!("specularExponent"),
            local_name!("spreadmethod") => local_name!("spreadMethod"),
            local_name!("startoffset") => local_name!("startOffset"),
            local_name!("stddeviation") => local_name!("stdDeviation"),
            local_name!("stitchtiles") => local_name!("stitchTiles"),
            local_name!("surfacescale") => local_name!("surfaceScale"),
            local_name!("systemlanguage") => local_name!("systemLanguage"),
            local_name!("tablevalues") => local_name!("tableValues"),
            local_name!("targetx") => local_name!("targetX"),
            local_name!("targety") => local_name!("targetY"),
            local_name!("textlength") => local_name!("textLength"),
            local_name!("viewbox") => local_name!("viewBox"),
            local_name!("viewtarget") => local_name!("viewTarget"),
            local_name!("xchannelselector") => local_name!("xChannelSelector"),
            local_name!("ychannelselector") => local_name!("yChannelSelector"),
            local_name!("zoomandpan") => local_name!("zoomAndPan"),
            _ => continue,
        };
        a.name = QualName::new(None, ns!(), local);
    }
}

pub(super) fn adjust_foreign_attributes(tag: &mut RawTag) {
    for a in &mut tag.attrs {
        a.name = match a.name.local {
            local_name!("xlink:actuate") => xlink(local_name!("actuate")),
            local_name!("xlink:arcrole") => xlink(local_name!("arcrole")),
            local_name!("xlink:href") => xlink(local_name!("href")),
            local_name!("xlink:role") => xlink(local_name!("role")),
            local_name!("xlink:show") => xlink(local_name!("show")),
            local_name!("xlink:title") => xlink(local_name!("title")),
            local_name!("xlink:type") => xlink(local_name!("type")),
            local_name!("xml:lang") => QualName::new(
                Some(namespace_prefix!("xml")),
                ns!(xml),
                local_name!("lang"),
            ),
            local_name!("xml:space") => QualName::new(
                Some(namespace_prefix!("xml")),
                ns!(xml),
                local_name!("space"),
            ),
            // html5ever gives this one an empty prefix, not none.
            local_name!("xmlns") => QualName::new(
                Some(namespace_prefix!("")),
                ns!(xmlns),
                local_name!("xmlns"),
            ),
            local_name!("xmlns:xlink") => QualName::new(
                Some(namespace_prefix!("xmlns")),
                ns!(xmlns),
                local_name!("xlink"),
            ),
            _ => continue,
        };
    }
}

pub(super) fn xlink(local: LocalName) -> QualName {
    QualName::new(Some(namespace_prefix!("xlink")), ns!(xlink), local)
}
