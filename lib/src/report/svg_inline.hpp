#pragma once
// gnuplot's SVG files as elements of one HTML page. CUDA-free.
#include <string>
#include <string_view>

namespace gpubench::detail {

/// The <svg> element of a gnuplot SVG file, ready to sit inside an HTML page:
///  * everything before <svg> (the XML declaration, a doctype, comments) is dropped, as are the
///    xmlns attributes (the HTML parser puts <svg> in the SVG namespace itself, and a page that
///    opens offline should not even name a URL);
///  * every id is prefixed with `prefix`, and so is every reference to one (href="#…", url(#…)):
///    gnuplot gives the same ids (gpPt7, gnuplot_canvas, …) in every file, and a page with
///    repeated ids resolves a reference into whichever figure comes first;
///  * polyline path data loses the points that lie on the line anyway (svg_path.hpp), gnuplot's
///    usual group attributes become class "gl" (the page's style sheet holds its rule), and
///    definitions nothing refers to go, which keeps a page of many charts small;
///  * the root gets role="img", an aria-label and `css_class`; gnuplot's <title>Gnuplot</title>
///    (the tooltip over the whole figure) becomes `title`. Both are HTML-escaped here.
/// Throws runtime_error when `svg` holds no <svg>…</svg> element.
std::string inline_svg(std::string_view svg, std::string_view prefix, std::string_view title, std::string_view css_class);

/// The width of an SVG's viewBox ("0 0 W H"), its size in CSS pixels as drawn; 0 when it has none.
double svg_view_width(std::string_view svg);

}  // namespace gpubench::detail
