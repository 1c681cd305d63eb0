// The contact page: renders the platform's "Contact us" form with the form embed. The form's
// guid and {forms_url} come from the demo server (they differ per installation).
(function () {
  'use strict';
  var target = document.getElementById('contact-form');
  fetch('/demo-config.json')
    .then(function (res) {
      return res.json();
    })
    .then(function (config) {
      if (!window.svc || !window.svc.forms) throw new Error('the form embed (/svc/forms.js) did not load');
      window.svc.forms.create({
        portalId: config.portalId,
        formId: config.contactFormId,
        formsUrl: config.formsUrl,
        target: '#contact-form',
        inlineMessage: 'Thanks! We will be in touch. Go back to the home page: we know you now.',
        // The site styles the form itself (demo.css), so the strict CSP needs no nonce for a <style>.
        css: '',
      });
    })
    .catch(function (err) {
      target.textContent = 'The form could not be loaded: ' + err.message;
    });
})();
