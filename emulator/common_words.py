"""Common words of the detection languages that share an alphabet, for short texts.

lingua's low-accuracy mode (see `detection`) reads letter trigrams, too few of which a text of
a few words holds: "Hello world" comes out Vietnamese, "Hallo Welt" Finnish. A greeting or a
short phrase is mostly words every speaker of its language uses, so a small table of them per
language tells such a text apart where the trigrams cannot.

Only languages written in the Latin or Cyrillic alphabet are listed: every other detection
language has a script of its own (Greek, Hebrew, Arabic, Thai, Hangul, kana, Han), which
lingua recognizes by itself. Words are lowercase and of two letters or more, as `detection`
splits a text; a word several languages share is listed under each of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

_WORDS = {
    "en": """the an and or but of to in on at for with from by is are was were be been have
        has had do does did not no yes this that these those it its he she we they you your my
        our their me him her us them what who how why when where which there here hello hi
        good morning evening night thanks thank please world today tomorrow see will would can
        could should all very""",
    "de": """der die das den dem des ein eine einen einem einer und oder aber nicht ist sind war
        bin bist hat haben ich du er sie es wir ihr mit von zu auf für im in an bei nach aus wie
        was wer wo warum auch noch schon sehr hallo guten tag morgen abend nacht danke bitte
        schön welt heute ja nein geht gut dir mir ihnen bis""",
    "fr": """le la les un une des du de et ou mais est sont être avoir ai as il elle nous vous
        ils elles je tu ce cette ces que qui quoi pas ne pour dans sur avec par en au aux
        bonjour bonsoir bonne nuit merci beaucoup monde oui non très bien comment ça va demain
        tous toutes tout mes mon ma où plaît""",
    "es": """el la los las un una unos unas pero de del al en con por para es son está están
        estoy ser fue yo tú tu él ella nosotros usted ustedes que qué como cómo no sí muy bien
        hola buenos buenas días día noches gracias muchas mundo hasta mañana adiós todo ya
        estás dónde favor""",
    "it": """il lo la gli le un uno una di da in con su per tra fra che chi non sono sei siamo
        ho hai ha abbiamo io tu lui lei noi voi loro ciao buongiorno buonasera buonanotte grazie
        mille prego mondo come stai sta bene molto anche ma ed del della dei al alla domani
        oggi sì dove questo questa favore""",
    "pt": """os as um uma uns umas ou mas de do da dos das no na nos nas em com por para que
        não sim são está estão eu tu você ele ela nós vocês olá oi bom boa dia noite obrigado
        obrigada muito mundo como até amanhã hoje tudo onde favor""",
    "nl": """de het een en of maar niet is zijn was ik jij je hij zij wij we ze van in op met
        voor aan bij naar uit dat die dit wat wie hoe waar ook nog al heel goed hallo dag
        goedemorgen goedenavond bedankt dank dankjewel wel wereld ja nee morgen vandaag tot
        gaat""",
    "pl": """na do się nie jest są to że co jak ale tak lub od po za dla przez ja ty on ona my
        wy oni mnie cześć dzień dobry dobranoc dziękuję bardzo proszę witaj świecie świat jutra
        jutro dziś masz gdzie""",
    "cs": """je jsem jsi jsou byl být se si na do to že co jak ale ano ne není tak už jen pro
        od po za já ty on ona my vy oni ahoj dobrý dobré den ráno večer děkuji děkuju prosím
        svět světe zítra dnes máš mám shledanou velmi moc kde""",
    "sk": """je som si sú bol byť sa na do to že čo ako ale áno nie tak už len pre od po za ja
        ty on ona my vy oni ahoj dobrý dobré deň ráno večer ďakujem prosím svet zajtra dnes
        máš mám dovidenia veľmi kde""",
    "sl": """je sem si so smo bil biti se na in da ne to ki kot ali pa za po od iz jaz ti on
        ona mi vi oni živjo zdravo pozdravljen pozdravljeni dobro jutro dan dober večer hvala
        lepa prosim svet jutri danes kako nasvidenje zelo kje""",
    "da": """og at en et den det de der som er var har have jeg du han hun vi ikke med for til
        på af fra om men så også meget godt god morgen godmorgen dag aften nat tak hej farvel
        verden ja nej hvordan hvad hvor skal ses""",
    "sv": """och att en ett den det de som är var har jag du han hon vi ni inte med för till
        på av från om men så också mycket bra god morgon kväll natt tack hej hejdå världen ja
        nej hur vad mår ses imorgon idag""",
    "nb": """og en et ei den det de som er var har jeg du han hun vi dere ikke med for til på
        av fra om men så også veldig godt god morgen kveld natt takk tusen hei ha verden ja
        nei hvordan hva hvor sees""",
    "fi": """ja on ei se että olen olet oli minä sinä hän me te he tämä tuo mitä kuka miten
        missä kanssa mutta myös hyvää huomenta päivää iltaa yötä kiitos paljon hei moi terve
        maailma kyllä huomenna tänään kuuluu nähdään""",
    "et": """ja on ei see et ma sa ta me te nad mina sina tema olen oled oli kas mis kes
        kuidas kus aga ka väga tere hommikust päevast õhtust head ööd aitäh tänan palun maailm
        jah homme täna läheb näeme""",
    "lv": """un ir ar uz no par ka kā es tu viņš viņa mēs jūs viņi man tev ne jā nē bet arī
        ļoti labdien labrīt labvakar sveiki sveika sveiks paldies lūdzu pasaule rīt šodien
        iet tiksimies""",
    "lt": """ir ar iš su be kad kaip kas kur bet taip ne aš tu jis ji mes jūs jie man tau
        labas laba rytas diena vakaras ačiū prašom pasauli pasaulis rytoj rytojaus šiandien
        sekasi iki labai""",
    "hu": """az egy és vagy de nem igen van vannak volt én te mi ti ők ez hogy mint is meg
        csak már még nagyon jó reggelt napot estét köszönöm szépen kérem szia sziasztok helló
        világ holnap ma viszlát hol""",
    # ș and ț are also written with a cedilla (ş, ţ): both spellings are listed.
    "ro": """și şi în la pe cu de din pentru că ce nu da este sunt am ai are eu tu el ea noi
        voi ei un bună ziua dimineața dimineaţa seara noapte mulțumesc mulţumesc salut lume
        mâine azi foarte bine faci""",
    "tr": """ve bir bu şu ben sen biz siz onlar de da ile için gibi ama değil var yok evet
        hayır çok iyi merhaba selam günaydın akşamlar geceler teşekkür teşekkürler ederim
        dünya yarın bugün nasılsın nasıl görüşürüz mi mı nerede lütfen""",
    "id": """dan yang di ke dari ini itu dengan untuk tidak ada saya aku kamu anda dia kami
        kita mereka apa siapa bagaimana kabar halo hai selamat pagi siang sore malam terima
        kasih dunia besok hari juga sudah akan bisa sampai jumpa baik""",
    "vi": """và là của có không được người một những các cho với này đó tôi bạn anh chị em
        ông bà chúng ta xin chào cảm ơn thế giới buổi sáng tối khỏe hẹn gặp lại rất tốt""",
    "ru": """не на ты он она мы вы они что это как так но да нет все был была быть есть по
        из за для от привет здравствуйте доброе добрый утро день вечер спасибо пожалуйста мир
        дела завтра сегодня хорошо очень до свидания где""",
    "uk": """не на ти він вона ми ви вони що це як так але та ні був була бути по із за для
        від до привіт вітаю добрий доброго ранку ранок день вечір дякую будь ласка світ
        справи завтра сьогодні добре дуже побачення де""",
    "bg": """не на аз ти той тя ние вие те какво това как така но да всичко беше съм си по от
        за до здравей здравейте добро добър утро ден вечер благодаря моля свят утре днес
        добре много довиждане""",
}


def _languages_of() -> dict[str, tuple[str, ...]]:
    """The table turned round, once at import: a text's words are then looked up one by
    one, each naming every language it belongs to."""
    found: dict[str, list[str]] = {}
    for code, words in _WORDS.items():
        for word in dict.fromkeys(words.split()):
            found.setdefault(word, []).append(code)
    return {word: tuple(codes) for word, codes in found.items()}


# Each listed word and the languages that use it (each language once).
LANGUAGES_OF: Mapping[str, tuple[str, ...]] = MappingProxyType(_languages_of())
