// Progressive disclosure for generated forms: a fieldset marked
// data-applies-when="<control id>" data-applies-value="<value>" shows only while
// that control holds that value. Hidden controls are disabled so that they are not
// sent (a value typed there and then left behind must not refuse the form). Without
// this script every fieldset shows, its legend saying when it applies.
(function () {
  "use strict";
  function sync(fieldset) {
    var control = document.getElementById(fieldset.dataset.appliesWhen);
    if (!control) return;
    var applies = control.value === fieldset.dataset.appliesValue;
    fieldset.hidden = !applies;
    fieldset.disabled = !applies;
  }
  function start() {
    var groups = document.querySelectorAll("fieldset[data-applies-when]");
    groups.forEach(function (fieldset) {
      var control = document.getElementById(fieldset.dataset.appliesWhen);
      if (!control) return;
      control.setAttribute("aria-controls", fieldset.id);
      control.addEventListener("change", function () { sync(fieldset); });
      sync(fieldset);
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
