"""ISO 4217 currency codes and their minor units: the standard library has no such table.

The codes are the national and regional currencies of ISO 4217's list one as published in 2025
(with XCG, the Caribbean guilder, and ZWG, the Zimbabwe gold). Left out: fund and accounting
codes (BOV, CHE, CHW, CLF, COU, MXV, USN, UYI, UYW), precious metals, bond-market and drawing
units (XAU, XBA, XDR, XSU, XUA, …), the test codes XTS and XXX, and currencies since replaced
by another code (CUC, HRK, SLL, ZWL). A price list in a missing currency needs its code here.

The minor unit is the number of decimals an amount is rounded to: 2 for most currencies,
0 for the yen, the won and others, 3 for the dinars of Bahrain, Iraq, Jordan, Kuwait, Libya
and Tunisia and the Omani rial.
"""

from __future__ import annotations

from typing import Final

_NO_DECIMALS: Final = "BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX VND VUV XAF XOF XPF"
_THREE_DECIMALS: Final = "BHD IQD JOD KWD LYD OMR TND"
_TWO_DECIMALS: Final = """
    AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BRL BSD BTN BWP BYN
    BZD CAD CDF CHF CNY COP CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS
    GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR
    LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD
    PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN
    SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD UYU UZS VED VES WST XCD XCG YER ZAR
    ZMW ZWG
"""

MINOR_UNITS: Final[dict[str, int]] = {
    **dict.fromkeys(_TWO_DECIMALS.split(), 2),
    **dict.fromkeys(_NO_DECIMALS.split(), 0),
    **dict.fromkeys(_THREE_DECIMALS.split(), 3),
}
