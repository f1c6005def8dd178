`default_nettype none
// ndk_core_clock: the clocks a board makes from its oscillator: a differential input buffer and an
// MMCM whose VCO (f_in * Mult / Div) lies within 800..1600 MHz (UltraScale+ -2), giving
//   core_clk_o  = VCO / OutDiv:     the core clock of the board config (fw/<board>/config.tcl)
//   aux_clk_o   = VCO / AuxDiv:     125 MHz for the transceiver's reset helper
// Both run only while locked_o (asynchronous) is high; the board holds everything in reset until
// then.
module ndk_core_clock #(
  parameter real InPeriodNs = 8.0,   // the oscillator's period
  parameter real Mult       = 8.0,   // CLKFBOUT_MULT_F
  parameter int  Div        = 1,     // DIVCLK_DIVIDE
  parameter real OutDiv     = 25.0,  // CLKOUT0_DIVIDE_F
  parameter int  AuxDiv     = 8      // CLKOUT1_DIVIDE
) (
  input  wire clk_p_i,
  input  wire clk_n_i,
  input  wire rst_i,          // resets the MMCM (asynchronous)
  output wire aux_clk_o,
  output wire core_clk_o,
  output wire locked_o
);

  wire clk_ibuf, clkfb, clkout0, clkout1;

  IBUFDS u_ibuf (.I(clk_p_i), .IB(clk_n_i), .O(clk_ibuf));

  MMCME4_BASE #(
    .CLKIN1_PERIOD(InPeriodNs),
    .CLKFBOUT_MULT_F(Mult),
    .DIVCLK_DIVIDE(Div),
    .CLKOUT0_DIVIDE_F(OutDiv),
    .CLKOUT1_DIVIDE(AuxDiv)
  ) u_mmcm (
    .CLKIN1(clk_ibuf), .CLKFBIN(clkfb), .RST(rst_i), .PWRDWN(1'b0),
    .CLKFBOUT(clkfb), .CLKFBOUTB(),
    .CLKOUT0(clkout0), .CLKOUT0B(), .CLKOUT1(clkout1), .CLKOUT1B(), .CLKOUT2(), .CLKOUT2B(),
    .CLKOUT3(), .CLKOUT3B(), .CLKOUT4(), .CLKOUT5(), .CLKOUT6(),
    .LOCKED(locked_o)
  );

  BUFG u_core_buf (.I(clkout0), .O(core_clk_o));
  BUFG u_aux_buf (.I(clkout1), .O(aux_clk_o));

endmodule
