/** What the embed saw of a person before a submission, for the platform's spam rule (README,
 * "Spam without a captcha"): trusted key presses, pointer presses and inputs on the form (a
 * person's keyboard, mouse, finger, autofill or assistive technology; a script's events are not
 * trusted), and the controls the browser's own autofill filled. Only what is there at the submit
 * counts for autofill: a field the person changed afterwards is theirs. */
import { HONEYPOT } from '@svc/protocol';

/** Whether the browser autofilled `control` (`:autofill`, `:-webkit-autofill` in older Safari and
 * Chrome; a browser that knows neither throws, and has not autofilled it as far as we can tell). */
export function autofilled(control: Element): boolean {
  for (const selector of [':autofill', ':-webkit-autofill'])
    try {
      if (control.matches(selector)) return true;
    } catch {
      // unknown pseudo-class in this browser
    }
  return false;
}

/** Starts watching `form`; the function returned tells what was seen until then. */
export function watch(form: HTMLFormElement) {
  let interactions = 0;
  const seen = (e: Event) => e.isTrusted && interactions++;
  for (const type of ['keydown', 'pointerdown', 'input']) form.addEventListener(type, seen, true);
  return () => ({
    interactions,
    autofilled: Array.from(form.elements).filter((c) => (c as HTMLInputElement).name != HONEYPOT && autofilled(c))
      .length,
  });
}
