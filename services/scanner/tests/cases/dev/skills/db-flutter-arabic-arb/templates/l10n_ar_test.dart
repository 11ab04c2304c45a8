import 'package:flutter_gen/gen_l10n/app_localizations_ar.dart';
import 'package:flutter_test/flutter_test.dart';

void main() {
  final l10n = AppLocalizationsAr();

  test('negative balance keeps ALM before the minus sign', () {
    // Expected string contains a real U+061C before "-".
    expect(l10n.balanceNegative('120'), 'الرصيد: ؜-120 ر.س');
  });

  test('sync time is isolated', () {
    expect(l10n.lastSync('09:41'), 'آخر مزامنة: \u206609:41\u2069');
  });

  test('plural forms', () {
    expect(l10n.cartItems(0), 'السلة فارغة');
    expect(l10n.cartItems(2), 'منتجان');
  });
}
