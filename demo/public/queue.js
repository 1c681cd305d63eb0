// The site's queue snippet, as an external file because the Content-Security-Policy forbids inline
// script. It runs before the tracker loads; the tracker then executes what was queued.
window._svcq = window._svcq || [];
window._svcq.push(['setContentType', 'landing-page']);
