// Page logic of the demo site (plain browser JS, no build step). Talks to the tracker only through
// the `_svcq` queue, exactly like a customer's site would, and never uses innerHTML.
(function () {
  'use strict';

  var $ = function (id) {
    return document.getElementById(id);
  };
  /** Queues a tracker command; works before and after /tracker.js has loaded. */
  var svc = function (command) {
    window._svcq = window._svcq || [];
    window._svcq.push(command);
  };

  // --- Client-side navigation: Home and Pricing are two sections of index.html. ---------------

  var TITLES = { '/': 'Acme Widgets', '/pricing': 'Pricing · Acme Widgets' };
  var pages = document.querySelectorAll('[data-page]');

  function render(path) {
    if (!pages.length) return;
    if (!TITLES[path]) path = '/';
    pages.forEach(function (page) {
      page.hidden = page.getAttribute('data-page') !== path;
    });
    document.querySelectorAll('nav [data-route]').forEach(function (link) {
      if (link.getAttribute('data-route') === path) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    });
    document.title = TITLES[path];
  }

  if (pages.length) {
    document.addEventListener('click', function (event) {
      var link = event.target.closest && event.target.closest('a[data-route]');
      if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
      event.preventDefault();
      var path = link.getAttribute('data-route');
      if (path === location.pathname) return;
      // Navigate, then render, as routers do: a page view's title is the last one the page has at
      // the view's URL, so the new view gets the new title and the view before keeps its own.
      history.pushState(null, '', path);
      render(path);
    });
    addEventListener('popstate', function () {
      render(location.pathname);
    });
    render(location.pathname);
  }

  // --- Tracker commands -------------------------------------------------------------------------

  var form = $('identify-form');
  if (form) {
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var email = form.elements.email.value.trim();
      var firstname = form.elements.firstname.value.trim();
      var identity = { email: email };
      if (firstname) identity.firstname = firstname;
      svc(['identify', identity]);
      svc(['trackEvent', { id: 'identified' }]);
      $('identify-status').textContent = 'Identified as ' + email + ': the "identified" event carries it.';
      form.reset();
    });
  }

  var on = function (id, handler) {
    var element = $(id);
    if (element) element.addEventListener('click', handler);
  };
  on('buy', function () {
    // In the browser: a JavaScript custom event. On the server: the purchase itself, recorded by
    // the companion as a server-side event for this visitor. Only the purchase carries the price:
    // a value on both would count one purchase's revenue twice.
    svc(['trackEvent', { id: 'buy-clicked', plan: 'pro' }]);
    fetch('/api/buy', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ plan: 'pro' }),
    })
      .then(function (res) {
        return res.json().then(function (body) {
          $('buy-status').textContent = res.ok ? 'Thank you! Your purchase is recorded.' : body.message;
        });
      })
      .catch(function () {
        $('buy-status').textContent = 'The shop is not reachable right now.';
      });
  });
  on('consent-accept', function () {
    svc(['setConsent', true]);
    refreshCookies();
  });
  on('consent-decline', function () {
    svc(['setConsent', false]);
    refreshCookies();
  });
  on('forget-me', function () {
    svc(['revokeCookieConsent']);
    refreshCookies();
  });

  // --- Greeting: the companion knows a visitor who filled in a form ---------------------------

  function greet() {
    var greeting = $('greeting');
    if (!greeting) return;
    fetch('/svc/visitor', { cache: 'no-store' })
      .then(function (res) {
        return res.ok ? res.json() : { known: false };
      })
      .then(function (me) {
        var name = me.known && me.properties && me.properties.firstname;
        greeting.hidden = !name;
        if (name) greeting.textContent = 'Welcome back, ' + name + '!';
      })
      .catch(function () {
        /* no companion: no greeting */
      });
  }

  // --- Panel: cookies ---------------------------------------------------------------------------

  function cookie(name) {
    var found = document.cookie.split('; ').filter(function (pair) {
      return pair.indexOf(name + '=') === 0;
    })[0];
    return found ? decodeURIComponent(found.slice(name.length + 1)) : '';
  }

  function refreshCookies() {
    if ($('utk')) $('utk').textContent = cookie('svcutk') || '(none)';
    if ($('consent-state')) {
      var optOut = cookie('__svc_opt_out');
      $('consent-state').textContent =
        optOut === 'no' ? 'accepted' : optOut === 'yes' ? 'declined' : 'no decision (cookies allowed by default)';
    }
  }

  greet();
  refreshCookies();
  setInterval(refreshCookies, 2000);
})();
