'use strict';
// Lamplight's store finder: asks for the shopper's position (geolocation) and for notifications. Permission prompts
// are interruptions to the `web` registry: the matrix's `permissions` axis or a scenario's `permissions=` tag decides.
const lang = (navigator.languages || [navigator.language]).map((tag) => STRINGS[tag] ? tag : tag.split('-')[0])
  .find((tag) => STRINGS[tag]) || 'en';
const pseudo = (window.FlowMatrix && window.FlowMatrix.pseudolocalize) || ((text) => text);  // docs/WEB.md
const t = (key, values) => pseudo(STRINGS[lang][key] || STRINGS.en[key]).replace(/\{(\w+)\}/g, (_, k) => (values || {})[k] ?? '');
document.documentElement.lang = lang;
document.documentElement.dir = ['ar', 'he'].includes(lang) ? 'rtl' : 'ltr';
const $ = (id) => document.querySelector('[data-testid="' + id + '"]');
const STORES = [
  { name: 'Berlin Alexanderplatz', lat: 52.5219, lon: 13.4132 },
  { name: 'Paris Opéra', lat: 48.8720, lon: 2.3316 },
  { name: 'Tokyo Ginza', lat: 35.6717, lon: 139.7650 },
  { name: 'Tel Aviv Dizengoff', lat: 32.0775, lon: 34.7740 },
];
// The great-circle distance in kilometres.
const km = (a, b) => {
  const r = Math.PI / 180, dLat = (b.lat - a.lat) * r, dLon = (b.lon - a.lon) * r;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * r) * Math.cos(b.lat * r) * Math.sin(dLon / 2) ** 2;
  return 12742 * Math.asin(Math.sqrt(h));
};
const show = (id, text) => { $(id).textContent = text; $(id).hidden = false; };

$('stores.title').textContent = t('stores');
$('stores.locate').textContent = t('locate');
$('stores.offers').textContent = t('offers');
$('stores.locate').addEventListener('click', () => {
  navigator.geolocation.getCurrentPosition((position) => {
    const here = { lat: position.coords.latitude, lon: position.coords.longitude };
    const nearest = STORES.map((s) => ({ ...s, d: km(here, s) })).sort((a, b) => a.d - b.d)[0];
    $('stores.denied').hidden = true;
    show('stores.nearest', t('nearest', { store: nearest.name, km: new Intl.NumberFormat(lang).format(Math.round(nearest.d)) }));
  }, () => show('stores.denied', t('locationDenied')));
});
$('stores.offers').addEventListener('click', async () => {
  const answer = await Notification.requestPermission();
  show(answer === 'granted' ? 'stores.offers-on' : 'stores.offers-off', t(answer === 'granted' ? 'offersOn' : 'offersOff'));
});
