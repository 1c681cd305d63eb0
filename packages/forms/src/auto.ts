/** Script-tag entry (`dist/forms.js`): defaults from the tag, then `window.svc.forms`. */
import { capture } from './capture';
import { create } from './create';
import { readScriptTag } from './script';

readScriptTag(document.currentScript as HTMLScriptElement | null);
(window.svc = window.svc || {}).forms = { create, capture };
