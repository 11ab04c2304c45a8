package com.example.app.l10n

import androidx.core.text.BidiFormatter
import org.junit.Assert.assertEquals
import org.junit.Test

class InviteStringTest {
    private val rtl = BidiFormatter.getInstance(true)

    @Test
    fun emailIsWrappedForRtlContext() {
        // RLM, LRE, text, PDF, RLM: written as real characters on purpose.
        assertEquals("‏‪dana@example.com‬‏", rtl.unicodeWrap("dana@example.com"))
    }

    @Test
    fun hebrewNameIsLeftAlone() {
        assertEquals("דנה כהן", rtl.unicodeWrap("דנה כהן"))
    }
}
