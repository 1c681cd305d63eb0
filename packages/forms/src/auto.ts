/** Script-tag entry (`dist/forms.js`): defaults from the tag, then `window.svc.forms`. Campaign
 * parameters of the page are remembered for the session, for a form on a later page. */
import { capture } from './capture';
import { create } from './create';
import { remember } from './page';
import { readScriptTag } from './script';

readScriptTag(document.currentScript as HTMLScriptElement | null);
remember();
(window.svc = window.svc || {}).forms = { create, capture };
