// The report's style sheet. System fonts only (a web font would be a download), and print-friendly:
// the page is a document people keep and forward.
#include "report/html_parts.hpp"

namespace gpubench::detail {

const char* const kReportCss = R"css(
:root { --fg: #1d2125; --muted: #5f6b76; --line: #d8dee4; --bg-soft: #f6f8fa; --accent: #1f77b4;
        --bad: #b42318; --bad-bg: #fde8e6; --good: #1a7f37; --good-bg: #e3f5e8; --warn: #8a5a00; --warn-bg: #fff4d6; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; color: var(--fg); background: #fff; line-height: 1.45;
       font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; }
main { max-width: 1280px; margin: 0 auto; padding: 0 24px 48px; }
header.page { background: #24292f; color: #fff; padding: 20px 24px; }
header.page > div { max-width: 1280px; margin: 0 auto; }
header.page h1 { margin: 0 0 4px; font-size: 24px; }
header.page p { margin: 0; color: #d0d7de; }
h2 { font-size: 22px; margin: 40px 0 8px; padding-bottom: 6px; border-bottom: 2px solid var(--line); }
h3 { font-size: 19px; margin: 32px 0 8px; }
h4 { font-size: 16px; margin: 28px 0 6px; }
h4 .title, h3 .title { font-weight: normal; color: var(--muted); }
code { font: 13px ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, Consolas, monospace; }
small { color: var(--muted); font-size: 12.5px; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
section.profile { margin-top: 24px; }
section.chapter { border-top: 1px solid var(--line); margin-top: 32px; }
section.pair { margin: 8px 0 28px; }
p.explanation { max-width: 980px; margin: 4px 0 12px; }
p.note, p.missing { color: var(--muted); font-size: 14px; }
p.warning { background: var(--warn-bg); color: var(--warn); padding: 8px 12px; border-radius: 6px; }
.device { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 14px; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { padding: 5px 10px; border-bottom: 1px solid var(--line); vertical-align: top; text-align: left; }
thead th { background: var(--bg-soft); border-bottom: 2px solid var(--line); font-weight: 600; white-space: nowrap; }
table.facts th { color: var(--muted); font-weight: normal; white-space: nowrap; }
table.records { width: 100%; }
table.records tbody { border-top: 2px solid var(--line); }
table.records th.size { background: var(--bg-soft); font-weight: 600; max-width: 190px; }
td.num, th.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
td.variant { min-width: 200px; }
td.method { color: var(--muted); font-size: 12.5px; max-width: 520px; }
.faster { color: var(--good); font-weight: 600; }
.slower { color: var(--bad); font-weight: 600; }
.badge { display: inline-block; padding: 0 7px; border-radius: 10px; font-size: 12.5px; font-weight: 600; white-space: nowrap; }
.badge.bad { background: var(--bad-bg); color: var(--bad); }
.badge.good { background: var(--good-bg); color: var(--good); }
.badge.warn { background: var(--warn-bg); color: var(--warn); }
.badge.same { background: #eaeef2; color: #424a53; }
p.tally .badge { font-size: 14px; padding: 2px 10px; }
tr.v-slower td { background: #fff8f7; }
figure { margin: 12px 0 20px; }
figure svg { display: block; width: 100%; height: auto; max-width: 100%; }
svg .gl { fill: none; stroke: currentColor; stroke-linecap: butt; stroke-linejoin: miter; }  /* svg_inline.cpp */
figcaption { color: var(--muted); font-size: 13.5px; margin-top: 4px; max-width: 1000px; }
details { margin: 6px 0 12px; }
p.lead { color: var(--muted); font-size: 14px; margin: 14px 0 8px; max-width: 1100px; }
section.summary p.lead { font-size: 13px; margin: 10px 0 4px; max-width: none; }
div.glance { margin: 4px 0 10px; }
@media (min-width: 1200px) { div.glance.cols { columns: 2; column-gap: 24px; } }
div.glance .card { break-inside: avoid; margin: 0 0 8px; max-width: 920px; }  /* alone, it need not span the page */
div.glance p.chapter { margin: 0; padding: 4px 6px 0; font-weight: 600; font-size: 14.5px; white-space: nowrap; overflow: hidden;
                       text-overflow: ellipsis; }
div.glance p.chapter small { float: right; font-weight: normal; margin-left: 8px; }
table.glance { width: 100%; margin: 0; font-size: 13px; }
table.glance th, table.glance td { padding: 2px 4px; vertical-align: middle; border-bottom: 1px solid #eef1f4; white-space: nowrap; }
table.glance thead th { background: none; font-weight: normal; color: var(--muted); font-size: 12px; padding-top: 0;
                        border-bottom: 1px solid var(--line); vertical-align: bottom; }
table.glance thead th small { font-size: 11px; }
table.glance code { font-size: 12px; }
table.glance td.variant { min-width: 0; }
table.glance .pair { width: 100%; }
table.glance td.pair { max-width: 0; }  /* the column that gives way when a row is too wide */
table.glance td.pair div { display: flex; align-items: baseline; }
table.glance td.pair a { flex: 0 1 auto; min-width: 0; overflow: hidden; text-overflow: ellipsis; }
table.glance td.pair .size { flex: 1 1 0; width: 0; margin-left: 8px; overflow: hidden; text-overflow: ellipsis;
                             color: var(--muted); font-size: 11.5px; container-type: inline-size; }
@container (max-width: 3em) { table.glance td.pair .size span { display: none; } }  /* a cut-off letter says nothing */
table.glance small { font-size: 11.5px; }
table.glance td.ivl, table.glance th.ivl { width: 96px; min-width: 96px; }  /* html_glance.cpp's kTrackPx + padding */
.x { font-weight: 700; }
.good { color: var(--good); }
.bad { color: var(--bad); }
td.ivl, th.ivl { width: 170px; min-width: 150px; }
.track { position: relative; height: 14px; }
.track .band { position: absolute; top: 0; bottom: 0; background: #e6e6e6; }
.track .one { position: absolute; top: 0; bottom: 0; width: 1px; background: #8a8a8a; }
.track .range { position: absolute; top: 5px; height: 4px; background: #6e7781; border-radius: 2px; }
.track .est { position: absolute; top: 1px; height: 12px; width: 3px; margin-left: -1px; background: #424a53; }
.track .good { background: var(--good); }
.track .bad { background: var(--bad); }
.track-axis { position: relative; height: 15px; font-size: 11px; color: var(--muted); }
.track-axis span { position: absolute; transform: translateX(-50%); white-space: nowrap; }
.above { color: var(--warn); font-weight: 600; }
p.headline { margin: 6px 0 8px; font-size: 15px; }
table.counters { font-size: 13px; width: auto; }
table.counters td.size { white-space: nowrap; color: var(--muted); }
table.counters caption { font-weight: normal; color: var(--muted); font-size: 13px; }
td.sol { white-space: nowrap; font-variant-numeric: tabular-nums; }
.solbar { display: inline-block; width: 90px; height: 10px; background: #eaeef2; vertical-align: middle; margin-right: 4px; }
.solbar span { display: block; height: 100%; background: var(--accent); }
ol.notes { margin: -8px 0 16px; padding-left: 22px; max-width: 1000px; font-size: 13px; color: var(--muted); }
table.records small.ci { display: block; }
tr.winner td { background: var(--good-bg); }
details.spread, details.table { margin-top: 2px; }
table.verdicts td.ivl, table.verdicts td.trend { vertical-align: middle; }
svg.trend { display: block; }
table.verdicts td:first-child { max-width: 300px; }
table.verdicts td:nth-child(6) { min-width: 170px; }
table.verdicts td.ivl, table.verdicts th.ivl { width: 230px; }
details summary { cursor: pointer; color: var(--muted); font-size: 14px; }
ul.ids { columns: 2; font-size: 13px; }
footer { color: var(--muted); font-size: 13px; border-top: 1px solid var(--line); margin-top: 48px; padding-top: 12px; }
@media print { header.page { background: none; color: #000; } section.pair { break-inside: avoid; } }
)css";

}  // namespace gpubench::detail
