// The shop's string tables. The app picks the first of navigator.languages it has a table for (by full tag, then
// by language), else English.
window.STRINGS = {
  en: {
    title: 'Lamplight', cart: 'Cart', add: 'Add to cart', search: 'Search lamps', loading: 'Loading lamps…',
    loadError: 'The lamps could not be loaded.', retry: 'Try again', cartHeading: 'Your cart',
    summaryBefore: 'You have', summaryAfter: 'items in your cart', empty: 'Your cart is empty.', total: 'Total',
    clear: 'Empty cart', clearConfirm: 'Remove everything from your cart?', checkout: 'Check out',
    ordered: 'Thank you! Order {order} is on its way.', orderError: 'The order did not go through. Please try again.',
    offline: 'You are offline.', portrait: 'Portrait layout', landscape: 'Landscape layout', promo: 'Promotion: {code}',
  },
  de: {
    title: 'Lamplight', cart: 'Warenkorb', add: 'In den Warenkorb', search: 'Lampen suchen', loading: 'Lampen werden geladen…',
    loadError: 'Die Lampen konnten nicht geladen werden.', retry: 'Erneut versuchen', cartHeading: 'Ihr Warenkorb',
    summaryBefore: 'Sie haben', summaryAfter: 'Artikel im Warenkorb', empty: 'Ihr Warenkorb ist leer.', total: 'Summe',
    clear: 'Leeren', clearConfirm: 'Alles aus dem Warenkorb entfernen?', checkout: 'Zur Kasse',
    ordered: 'Danke! Bestellung {order} ist unterwegs.', orderError: 'Die Bestellung ist fehlgeschlagen. Bitte erneut versuchen.',
    offline: 'Sie sind offline.', portrait: 'Hochformat', landscape: 'Querformat', promo: 'Aktion: {code}',
  },
  fr: {
    title: 'Lamplight', cart: 'Panier', add: 'Ajouter', search: 'Chercher', loading: 'Chargement…',
    loadError: 'Impossible de charger les lampes.', retry: 'Réessayer', cartHeading: 'Votre panier',
    summaryBefore: 'Vous avez', summaryAfter: 'articles dans le panier', empty: 'Votre panier est vide.', total: 'Total',
    clear: 'Vider', clearConfirm: 'Retirer tous les articles ?', checkout: 'Commander',
    ordered: 'Merci ! La commande {order} est en route.', orderError: 'La commande a échoué. Réessayez.',
    offline: 'Vous êtes hors ligne.', portrait: 'Portrait', landscape: 'Paysage', promo: 'Promotion : {code}',
  },
  ja: {
    title: 'Lamplight', cart: 'カート', add: 'カートへ', search: 'ランプを検索', loading: '読み込み中…',
    loadError: 'ランプを読み込めませんでした。', retry: '再試行', cartHeading: 'カート',
    summaryBefore: 'カートに', summaryAfter: '点の商品があります', empty: 'カートは空です。', total: '合計',
    clear: '空にする', clearConfirm: 'カートを空にしますか？', checkout: '購入手続き',
    ordered: 'ありがとうございます。注文 {order} を発送します。', orderError: '注文できませんでした。もう一度お試しください。',
    offline: 'オフラインです。', portrait: '縦向き', landscape: '横向き', promo: 'キャンペーン: {code}',
  },
  ar: {
    title: 'Lamplight', cart: 'السلة', add: 'أضف', search: 'ابحث', loading: 'جارٍ التحميل…',
    loadError: 'تعذر تحميل المصابيح.', retry: 'أعد المحاولة', cartHeading: 'سلتك',
    summaryBefore: 'لديك', summaryAfter: 'منتجات في السلة', empty: 'سلتك فارغة.', total: 'المجموع',
    clear: 'إفراغ', clearConfirm: 'هل تريد إفراغ السلة؟', checkout: 'الدفع',
    ordered: 'شكرًا! الطلب {order} في الطريق.', orderError: 'لم يتم الطلب. حاول مرة أخرى.',
    offline: 'أنت غير متصل.', portrait: 'عمودي', landscape: 'أفقي', promo: 'عرض: {code}',
  },
  he: {
    title: 'Lamplight', cart: 'סל', add: 'הוסף', search: 'חיפוש', loading: 'טוען…',
    loadError: 'לא ניתן לטעון את המנורות.', retry: 'נסה שוב', cartHeading: 'הסל שלך',
    summaryBefore: 'יש לך', summaryAfter: 'פריטים בסל', empty: 'הסל ריק.', total: 'סה״כ',
    clear: 'רוקן', clearConfirm: 'להסיר הכול מהסל?', checkout: 'לתשלום',
    ordered: 'תודה! הזמנה {order} בדרך.', orderError: 'ההזמנה נכשלה. נסה שוב.',
    offline: 'אין חיבור.', portrait: 'לאורך', landscape: 'לרוחב', promo: 'מבצע: {code}',
  },
};
