// Pricing page: spot and committed-term prices come live from the capacity service.
(function () {
  "use strict";
  var cfg = window.__JL_CONFIG__ || {};
  var API = (cfg.apiBase || "https://backendn.jarvislabs.net") + "/misc/server_meta";
  var table = document.getElementById("gpu-pricing");
  if (!table) return;

  function money(v) { return "$" + v.toFixed(2) + "/hr"; }

  // One row per GPU and region; the VM offer is the one the page quotes.
  function pick(meta, gpuType, region) {
    var rows = meta.filter(function (m) { return m.gpu_type === gpuType && m.region === region; });
    return rows.filter(function (m) { return m.workload_type === "vm"; })[0]
      || rows.filter(function (m) { return m.workload_type == null; })[0]
      || rows[0];
  }

  function fill(data) {
    var terms = {};
    (data.term_discounts || []).forEach(function (t) { terms[t.term] = t; });
    table.querySelectorAll("tbody tr[data-gpu-type]").forEach(function (tr) {
      var m = pick(data.server_meta || [], tr.dataset.gpuType, tr.dataset.region);
      if (m) tr.dataset.free = m.num_free_devices;
      tr.querySelectorAll("[data-fill]").forEach(function (td) {
        td.textContent = "";
        if (!m) { td.textContent = "\u2014"; td.dataset.state = "unlisted"; return; }
        if (td.dataset.fill === "spot") {
          if (m.spot_price == null) { td.textContent = "\u2014"; td.dataset.state = "unavailable"; return; }
          td.textContent = money(m.spot_price);
          td.dataset.state = "priced";
          td.dataset.free = m.spot_num_free_devices;
          return;
        }
        var t = terms[td.dataset.term];
        if (!t) { td.textContent = "\u2014"; td.dataset.state = "unavailable"; return; }
        if (t.contact_sales) { td.textContent = "Contact sales"; td.dataset.state = "contact"; return; }
        td.textContent = money(Math.round(m.price_per_hour * (100 - t.discount_pct)) / 100);
        td.dataset.state = "priced";
      });
    });
    table.dataset.livePrices = "loaded";
  }

  fetch(API, { credentials: "omit" })
    .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status + " from " + API); return r.json(); })
    .then(fill)
    .catch(function (err) {
      table.querySelectorAll("[data-fill]").forEach(function (td) {
        td.textContent = "Unavailable";
        td.dataset.state = "error";
      });
      table.dataset.liveError = String((err && err.message) || err);
      table.dataset.livePrices = "error";
    });
})();
